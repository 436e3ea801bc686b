-- schema.sql - the one schema of blockwise-server, for both of its backends:
-- the embedded SQLite file (WAL mode) and PostgreSQL.
--
-- This file is a list of migrations. Each starts with a line "-- migration N"
-- (N = 1, 2, ... in order) and is applied once, inside one transaction, when
-- the database's version is below N (SQLite: PRAGMA user_version;
-- PostgreSQL: the schema_version table); the server then records N. A
-- released migration is never edited: a change to the schema is a new
-- migration appended at the end. The server embeds this file at build time
-- (server/store/schema.c), so a binary always carries the schema it needs.
--
-- It is written in SQLite's dialect, within a subset PostgreSQL takes after a
-- word-for-word translation of the column types (server/store/schema.c says
-- which); text between "-- if postgresql" (or "-- if sqlite") and "-- end if"
-- lines is for that backend only, where a migration must differ.
--
-- Times are integer seconds since the Unix epoch (UTC) unless a column says
-- _ms. Secrets (session ids, API and worker tokens) are stored only as their
-- BLAKE2b hash (hex); passwords as libsodium argon2id strings.

-- migration 1
CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    password      TEXT NOT NULL,                -- crypto_pwhash_str (argon2id)
    role          TEXT NOT NULL DEFAULT 'learner'
                  CHECK (role IN ('learner', 'instructor', 'admin')),
    created_at    INTEGER NOT NULL,
    disabled      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE sessions (
    id_hash       TEXT PRIMARY KEY,             -- hash of the cookie value
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf          TEXT NOT NULL,                -- the synchronizer token (not secret from its owner)
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE api_tokens (
    id            INTEGER PRIMARY KEY,
    token_hash    TEXT NOT NULL UNIQUE,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER
);

CREATE TABLE problems (
    id            TEXT PRIMARY KEY,             -- the directory name
    title         TEXT NOT NULL,
    hash          TEXT NOT NULL,                -- content hash of the loaded directory
    loaded_at     INTEGER NOT NULL,
    disabled      INTEGER NOT NULL DEFAULT 0,   -- set by repeated internal errors or an admin
    disabled_reason TEXT,
    error_streak  INTEGER NOT NULL DEFAULT 0    -- internal errors since its last good result
);

-- Every version of every problem's files that a submission may name.
CREATE TABLE bundles (
    hash          TEXT PRIMARY KEY,
    problem_id    TEXT NOT NULL,
    data          BLOB NOT NULL,                -- the bundle JSON served to workers
    created_at    INTEGER NOT NULL
);

CREATE TABLE workers (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    token_hash    TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    registered_at INTEGER,
    last_seen_at  INTEGER,
    hostname      TEXT,
    version       TEXT,
    gpu           TEXT,                         -- JSON: struct gpu_info as the worker reported it
    gpu_name      TEXT,
    can_execute   INTEGER NOT NULL DEFAULT 0,   -- 0: compile-only (no GPU on that machine)
    disabled      INTEGER NOT NULL DEFAULT 0,
    disabled_reason TEXT,
    error_streak  INTEGER NOT NULL DEFAULT 0    -- internal errors since its last good result
);

-- state: queued -> judging -> done; judging -> queued on an expired or
-- released lease; done -> queued on a rejudge. Leases are kept as history.
CREATE TABLE submissions (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users(id),
    problem_id    TEXT NOT NULL,
    problem_hash  TEXT NOT NULL,                -- the bundle this submission is judged against
    mode          TEXT NOT NULL CHECK (mode IN ('run', 'submit')),
    source        TEXT NOT NULL,
    seed          INTEGER NOT NULL,             -- secret input seed (never shown before the verdict)
    state         TEXT NOT NULL DEFAULT 'queued'
                  CHECK (state IN ('queued', 'judging', 'done')),
    needs_gpu     INTEGER NOT NULL DEFAULT 0,   -- compiled on a compile-only worker; waits for a GPU
    attempts      INTEGER NOT NULL DEFAULT 0,   -- leases granted so far
    created_at    INTEGER NOT NULL,
    queued_at     INTEGER NOT NULL,             -- last time it entered the queue
    judged_at     INTEGER,
    verdict       TEXT,                         -- verdict code ("AC"), NULL until done
    message       TEXT,
    score         REAL,
    time_ms       REAL,                         -- geometric mean of the shapes' median times
    worker_id     INTEGER REFERENCES workers(id),
    gpu_name      TEXT,
    result        TEXT                          -- the worker's full result JSON
);
CREATE INDEX submissions_queue ON submissions(state, needs_gpu, id);
CREATE INDEX submissions_user ON submissions(user_id, id);
CREATE INDEX submissions_user_mode ON submissions(user_id, mode, created_at);
CREATE INDEX submissions_problem ON submissions(problem_id, id);

CREATE TABLE leases (
    id            TEXT PRIMARY KEY,             -- random, given to the worker; keys idempotent posts
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    worker_id     INTEGER NOT NULL REFERENCES workers(id),
    attempt       INTEGER NOT NULL,
    state         TEXT NOT NULL DEFAULT 'active'
                  CHECK (state IN ('active', 'done', 'expired', 'released', 'failed', 'lost')),
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,
    ended_at      INTEGER,
    reason        TEXT
);
CREATE INDEX leases_active ON leases(state, expires_at);
CREATE INDEX leases_worker ON leases(worker_id, state);
CREATE INDEX leases_submission ON leases(submission_id);

CREATE TABLE test_results (
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    name          TEXT NOT NULL,
    verdict       TEXT,
    message       TEXT,
    ms            REAL,
    PRIMARY KEY (submission_id, idx)
);

CREATE TABLE bench_results (
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    name          TEXT NOT NULL,
    samples       INTEGER,
    median_ms     REAL, min_ms REAL, max_ms REAL,
    gbps          REAL, tflops REAL, sol_pct REAL,
    clock_mhz     INTEGER,
    PRIMARY KEY (submission_id, idx)
);

-- The best Accepted Submit per user, problem and GPU model (maintained on
-- every stored result and rebuilt for a problem after a rejudge).
CREATE TABLE best (
    user_id       INTEGER NOT NULL REFERENCES users(id),
    problem_id    TEXT NOT NULL,
    gpu_name      TEXT NOT NULL,
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    score         REAL NOT NULL,
    time_ms       REAL NOT NULL,
    at            INTEGER NOT NULL,
    PRIMARY KEY (user_id, problem_id, gpu_name)
);
CREATE INDEX best_board ON best(problem_id, gpu_name, time_ms);

-- Solved = at least one Accepted (Run or Submit), on any GPU.
CREATE TABLE solved (
    user_id       INTEGER NOT NULL REFERENCES users(id),
    problem_id    TEXT NOT NULL,
    first_at      INTEGER NOT NULL,
    PRIMARY KEY (user_id, problem_id)
);

-- migration 2
-- Cancelling a submission (its owner or an admin, before its verdict). A
-- cancelled submission is state 'done' with verdict NULL and cancelled_at
-- set: migration 1's CHECK on state cannot take a new value without
-- rebuilding the table, which foreign keys (leases, results) make unsafe.
-- The API calls it state "cancelled". cancelled_from is where it was when
-- cancelled: 'queued' (not compiled yet), 'waiting_for_gpu' (compiled by a
-- compile-only worker) or 'judging' (a worker held it: that lease ended as
-- 'lost' with reason 'cancelled by NAME'). A cancelled submission is never
-- claimed, judged or rejudged again.
ALTER TABLE submissions ADD COLUMN cancelled_at INTEGER;
ALTER TABLE submissions ADD COLUMN cancelled_by INTEGER REFERENCES users(id);
ALTER TABLE submissions ADD COLUMN cancelled_from TEXT
    CHECK (cancelled_from IN ('queued', 'waiting_for_gpu', 'judging'));

-- migration 3
-- Languages (issue 11): a submission is CUDA or Triton; a worker compiles the
-- languages it registered; a leaderboard ranks per GPU model and language.
-- Every submission before this migration is CUDA, and so is every worker that
-- registered before it (an old judged sends no "languages": the server takes
-- it as CUDA only, at an unknown version).
ALTER TABLE submissions ADD COLUMN language TEXT NOT NULL DEFAULT 'cuda'
    CHECK (language IN ('cuda', 'triton'));

-- What each worker said it compiles at its last registration (one row per
-- language the server knows; names it does not know are left out).
CREATE TABLE worker_languages (
    worker_id     INTEGER NOT NULL REFERENCES workers(id) ON DELETE CASCADE,
    language      TEXT NOT NULL CHECK (language IN ('cuda', 'triton')),
    version       TEXT NOT NULL DEFAULT '',   -- as the worker reported it ("13.0", "3.6.0"); '' unknown
    PRIMARY KEY (worker_id, language)
);
INSERT INTO worker_languages(worker_id, language, version)
    SELECT id, 'cuda', '' FROM workers WHERE registered_at IS NOT NULL;

-- best gains the language in its key: a new table, the rows copied (all
-- CUDA), the old one dropped (no table refers to it).
CREATE TABLE best_by_language (
    user_id       INTEGER NOT NULL REFERENCES users(id),
    problem_id    TEXT NOT NULL,
    gpu_name      TEXT NOT NULL,
    language      TEXT NOT NULL CHECK (language IN ('cuda', 'triton')),
    submission_id INTEGER NOT NULL REFERENCES submissions(id),
    score         REAL NOT NULL,
    time_ms       REAL NOT NULL,
    at            INTEGER NOT NULL,
    PRIMARY KEY (user_id, problem_id, gpu_name, language)
);
INSERT INTO best_by_language(user_id, problem_id, gpu_name, language, submission_id, score,
                             time_ms, at)
    SELECT user_id, problem_id, gpu_name, 'cuda', submission_id, score, time_ms, at FROM best;
DROP TABLE best;
ALTER TABLE best_by_language RENAME TO best;
CREATE INDEX best_board ON best(problem_id, gpu_name, language, time_ms);

-- solved likewise: solved in a language = at least one Accepted in it; a
-- problem is solved when it is solved in any language.
CREATE TABLE solved_by_language (
    user_id       INTEGER NOT NULL REFERENCES users(id),
    problem_id    TEXT NOT NULL,
    language      TEXT NOT NULL CHECK (language IN ('cuda', 'triton')),
    first_at      INTEGER NOT NULL,
    PRIMARY KEY (user_id, problem_id, language)
);
INSERT INTO solved_by_language(user_id, problem_id, language, first_at)
    SELECT user_id, problem_id, 'cuda', first_at FROM solved;
DROP TABLE solved;
ALTER TABLE solved_by_language RENAME TO solved;

-- migration 4
-- Deleting a worker (an admin's DELETE /api/admin/workers/{id}, or
-- blockwise-server delete-worker NAME): the row stays for the history that
-- names it (leases, submissions), with deleted_at set, its token hash
-- replaced by one no token hashes to, disabled, and renamed "NAME (deleted
-- ID)" so that NAME can be given to a new worker. Deleted workers are not
-- listed and never counted.
ALTER TABLE workers ADD COLUMN deleted_at INTEGER;

-- migration 5
-- Learners are served in turns (issue 28): a submission's round is the turn
-- it is served in. A new submission takes max(the round being served now,
-- one more than its learner's latest round still queued or judging), and
-- workers claim by (round, id): a learner with 100 jobs waiting holds rounds
-- 0..99, and another learner's first job takes the round being served, one
-- job behind at most. Submissions before this migration are round 0: among
-- themselves, first come first served as before.
ALTER TABLE submissions ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
CREATE INDEX submissions_turn ON submissions(state, round, id);

-- migration 6
-- Sign-in lockouts that spare known devices (issue 28). server_keys holds
-- the key that signs "known device" cookies (server/device.h), made at the
-- first start, so that the cookies outlive restarts. unlocks is the mailbox
-- of `blockwise-server unlock NAME` and `unlock-address ADDRESS`: the running
-- server, whose lockouts live in its memory, applies and deletes each row
-- within a second.
CREATE TABLE server_keys (
    name          TEXT PRIMARY KEY,
    value         BLOB NOT NULL
);
CREATE TABLE unlocks (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('name', 'address')),
    key           TEXT NOT NULL,
    requested_at  INTEGER NOT NULL
);

-- migration 7
-- PyTorch's time beside a Submit's (issue 29; judge/worker/baseline.h): per shape, PyTorch's
-- median as the worker measured it (its baseline.py, timed the judge's way on the same GPU);
-- per submission, and in its best row, the geometric mean over the shapes of PyTorch's time
-- over the kernel's ("x PyTorch", above 1: faster than PyTorch). NULL where a worker had no
-- PyTorch or a shape no time. The leaderboard sorts by it on request (?sort=pytorch).
ALTER TABLE bench_results ADD COLUMN pytorch_ms REAL;
ALTER TABLE submissions ADD COLUMN pytorch_speedup REAL;
ALTER TABLE best ADD COLUMN pytorch_speedup REAL;

-- migration 8
-- Several servers on one PostgreSQL database (issue 30).
-- events: every live event of a submission (server/sse.h), appended by the
-- server that saw it happen and read by every server with a stream of that
-- submission open, so that a learner connected to one server sees what a
-- worker reported through another. id is global and, for one submission,
-- grows in commit order (its appends are serialised): an event stream's
-- Last-Event-ID resumes on any server. A submission's story starts again at
-- its last 'queued' event (created, or rejudged). Events of finished
-- submissions are dropped BW_EVENTS_KEEP_S after they were written.
CREATE TABLE events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_id INTEGER NOT NULL,
    name          TEXT NOT NULL,
    data          TEXT NOT NULL,                -- the event's JSON
    final         INTEGER NOT NULL DEFAULT 0,   -- 1: it ends the submission's streams
    at            INTEGER NOT NULL
);
CREATE INDEX events_submission ON events(submission_id, id);
CREATE INDEX events_at ON events(at);

-- throttles: the sign-in lockouts and sign-up buckets (server/throttle.h)
-- when servers share them (PostgreSQL); one server on SQLite keeps them in
-- its memory instead. key is a keyed hash (server_keys 'throttle') of the
-- name, address, name-from-address pair, device nonce or sign-up address;
-- times are wall-clock milliseconds. A row whose failures are forgotten is
-- deleted by whichever server notices.
CREATE TABLE throttles (
    kind          TEXT NOT NULL CHECK (kind IN ('name', 'address', 'pair', 'device', 'signup')),
    key           TEXT NOT NULL,
    failures      INTEGER NOT NULL DEFAULT 0,
    pending       INTEGER NOT NULL DEFAULT 0,   -- attempts reserved and not ended
    pending_ms    INTEGER NOT NULL DEFAULT 0,   -- the last reservation (a crashed server's expire)
    last_ms       INTEGER NOT NULL DEFAULT 0,
    until_ms      INTEGER NOT NULL DEFAULT 0,
    tokens        REAL NOT NULL DEFAULT 0,      -- 'signup': the bucket's tokens at last_ms
    PRIMARY KEY (kind, key)
);

-- migration 9
-- Profile mode (issue 29): a Profile runs the tests as a Run does, then runs the plan under the
-- GPU's profiler on one benchmark shape; its result carries "profile" (docs/profile.md). Migration
-- 1's CHECK on mode cannot take a new value without rebuilding the table, which the foreign keys
-- of leases and results make unsafe (migration 2 says why), so a Profile is stored as mode 'run'
-- with profile = 1, and the API calls it mode "profile" (the store reads
-- STORE_MODE_SQL). It has its own window quota (quota_profile), and never enters best or solved:
-- a Profile is for looking at a kernel, not for a score.
ALTER TABLE submissions ADD COLUMN profile INTEGER NOT NULL DEFAULT 0 CHECK (profile IN (0, 1));
