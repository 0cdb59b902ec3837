-- What decides a message's content, written by each server at start-up beside the mail switches
-- (the last to start decides): the site address its links lead to (SITE_URL, else the address it
-- listens on), its sender (MAIL_FROM's header, null without SMTP_URL), the beta link (BETA_URL) and
-- its pace (MAIL_PER_MINUTE). The owner's CLI and studio queue without mail settings of their own
-- and preview from these, so a preview shows what the server sends (docs/decisions/055). Null site_url:
-- no server of this version has started yet.
alter table private.mail_settings
  add column if not exists site_url text,
  add column if not exists mail_from text,
  add column if not exists beta_url text,
  add column if not exists mail_per_minute integer;
