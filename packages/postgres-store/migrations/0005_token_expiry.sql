-- 0005_token_expiry: optional token expiry. A token whose expires_at has passed is refused like a revoked
-- one; null (every existing token) never expires. Expiry is checked at lookup time against now(): no
-- statement runs when a token expires, so nothing announces it, and a cache of resolved tokens must
-- itself forget a token at its expires_at.
alter table api_tokens add column expires_at timestamptz null;
