-- One mailbox, one key (ADR 075), for two more providers' aliases (issue 48, item 6). As before:
-- lower-cased, a +tag dropped on any domain, and at Gmail (gmail.com and googlemail.com, one
-- mailbox) the dots dropped too. Now also:
-- * Yahoo's disposable addresses, `base-keyword@yahoo.com`: Yahoo IDs hold no `-`, so the part from
--   the first one is the keyword, and `base@` the mailbox. At yahoo.com, Yahoo's country domains
--   (yahoo.co.uk, yahoo.fr, yahoo.com.au…) and ymail.com and rocketmail.com, which share its IDs;
--   not at yahoo.co.jp, another company's mail.
-- * Fastmail's subdomain addressing, `anything@user.fastmail.com`, delivered as user+anything: the
--   mailbox is `user@fastmail.com`. At the domains Fastmail offers its users, one level down.
-- Hashed, so the key is fixed-size. Plain SQL in `private`, owner-only: applies unchanged on hosted
-- Supabase and with an owner that is not a superuser.
create or replace function private.mailbox_key(address text)
returns bytea
language sql
immutable
strict
parallel safe
set search_path = ''
as $$
  select sha256(convert_to(
           case
             when domain in ('gmail.com', 'googlemail.com') then replace(local, '.', '') || '@gmail.com'
             when domain ~ '^(yahoo\.(com|[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})|ymail\.com|rocketmail\.com)$'
                  and domain <> 'yahoo.co.jp'
               then coalesce(nullif(split_part(local, '-', 1), ''), local) || '@' || domain
             when parent = any (array[
               '123mail.org', '150mail.com', '150ml.com', '16mail.com', '2-mail.com', '4email.net',
               '50mail.com', 'airpost.net', 'allmail.net', 'bestmail.us', 'cluemail.com', 'elitemail.org',
               'emailcorner.net', 'emailengine.net', 'emailengine.org', 'emailgroups.net', 'emailplus.org',
               'emailuser.net', 'eml.cc', 'f-m.fm', 'fast-email.com', 'fast-mail.org', 'fastem.com',
               'fastemail.us', 'fastemailer.com', 'fastest.cc', 'fastimap.com', 'fastmail.cn',
               'fastmail.co.uk', 'fastmail.com', 'fastmail.com.au', 'fastmail.de', 'fastmail.es',
               'fastmail.fm', 'fastmail.fr', 'fastmail.im', 'fastmail.in', 'fastmail.jp', 'fastmail.mx',
               'fastmail.net', 'fastmail.nl', 'fastmail.org', 'fastmail.se', 'fastmail.to', 'fastmail.tw',
               'fastmail.uk', 'fastmail.us', 'fastmailbox.net', 'fastmessaging.com', 'fea.st',
               'fmail.co.uk', 'fmailbox.com', 'fmgirl.com', 'fmguy.com', 'ftml.net', 'h-mail.us',
               'hailmail.net', 'imap-mail.com', 'imap.cc', 'imapmail.org', 'inoutbox.com',
               'internet-e-mail.com', 'internet-mail.org', 'internetemails.net', 'internetmailing.net',
               'jetemail.net', 'justemail.net', 'letterboxes.org', 'mail-central.com', 'mail-page.com',
               'mailandftp.com', 'mailas.com', 'mailbolt.com', 'mailc.net', 'mailcan.com', 'mailforce.net',
               'mailftp.com', 'mailhaven.com', 'mailingaddress.org', 'mailite.com', 'mailmight.com',
               'mailnew.com', 'mailsent.net', 'mailservice.ms', 'mailup.net', 'mailworks.org',
               'messagingengine.com', 'ml1.net', 'mm.st', 'myfastmail.com', 'mymacmail.com',
               'nospammail.net', 'ownmail.net', 'petml.com', 'postinbox.com', 'postpro.net',
               'proinbox.com', 'promessage.com', 'realemail.net', 'reallyfast.biz', 'reallyfast.info',
               'rushpost.com', 'sent.as', 'sent.at', 'sent.com', 'speedpost.net', 'speedymail.org',
               'ssl-mail.com', 'swift-mail.com', 'the-fastest.net', 'the-quickest.com',
               'theinternetemail.com', 'veryfast.biz', 'veryspeedy.net', 'warpmail.net', 'xsmail.com',
               'yepmail.net', 'your-mail.com'])
               then split_part(domain, '.', 1) || '@' || parent
             else local || '@' || domain
           end, 'UTF8'))
    from (select local, domain, substr(domain, strpos(domain, '.') + 1) as parent
            from (select split_part(split_part(lowered, '@', 1), '+', 1) as local,
                         split_part(lowered, '@', 2) as domain
                    from (select lower(address) as lowered) as a) as parts) as named
$$;

revoke all on function private.mailbox_key(text) from public, anon, authenticated;

-- The keys already kept (confirmation on) follow the rule: a Yahoo or Fastmail alias that
-- unsubscribed, complained or bounced now holds back its mailbox's other spellings too.
update private.entry_status s
   set mailbox = private.mailbox_key(w.email::text)
  from public.waitlist w
 where w.id = s.waitlist_id and s.mailbox is not null
   and s.mailbox <> private.mailbox_key(w.email::text);
