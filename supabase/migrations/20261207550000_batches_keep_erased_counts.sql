-- A batch keeps its counts when a person in it is erased (issue 64): "5 invited, 1 erased since",
-- as the team's record keeps its count of the batch. Counts only, never who: the erasure adds one to
-- the batch the person counted in (the one whose invitation they redeemed, else their latest), and
-- to `erased_joined` when they had joined, before their rows go.
alter table private.invite_batches
  add column if not exists erased integer not null default 0
    constraint invite_batches_erased check (erased >= 0),
  add column if not exists erased_joined integer not null default 0
    constraint invite_batches_erased_joined check (erased_joined between 0 and erased);
