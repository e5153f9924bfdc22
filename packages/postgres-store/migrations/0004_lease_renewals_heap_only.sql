-- 0004_lease_renewals_heap_only: no index holds a lease's expiry, so renewing a lease is a heap-only update.
--
-- `tasks_orphaned_idx (lease_expires_at) where not terminal` served the orphan sweep, but a lease is
-- renewed every third of its length for every running task, and each renewal moved the indexed expiry:
-- no renewal could be heap-only, so each one wrote a new entry into every index of `tasks` (a server
-- holding 5,000 running tasks renewed them in 66-96 ms every 10 s on PostgreSQL 15; without this index,
-- 21-35 ms, every update heap-only; see docs/performance.md).
--
-- The sweep (`listOrphaned`: running tasks whose lease expired, oldest first) now reads the running tasks
-- through `tasks_running_idx (workspace_id) where not terminal` and checks each one's expiry: a few
-- milliseconds per thousands of running tasks, once per sweep (every half lease per instance), instead of
-- index writes on every renewal.

drop index tasks_orphaned_idx;
