/**
 * The statement trigger the README asks of a cached table: every committed change to `table` NOTIFYs
 * `channel` with the table's name (what `CacheInvalidation` listens for).
 */
export function cacheChangeTriggerSql(table: string, channel: string): string {
  return `
create function ${table}_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('${channel}', tg_table_name);
  return null;
end $$;
create trigger ${table}_changed after insert or update or delete or truncate on ${table}
  for each statement execute function ${table}_changed();`;
}
