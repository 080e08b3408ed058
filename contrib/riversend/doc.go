// Package riversend sends SMS through telco-go from a River job queue on
// Postgres: many workers in many processes, one database, every message
// sent once.
//
// The intent to send is a River job, inserted with [Enqueue] inside the
// caller's own transaction, so it is committed with the caller's data or
// not at all.
//
// # Jobs carry chunks
//
// Enqueue groups the messages it is given into jobs of up to
// [DefaultChunkSize] messages of one project ([SendChunkArgs]), and a
// [Worker] sends each job's messages with one Messages.SendBatchOnce: one
// request to the service and two ledger transactions (the claim of every
// message before the request, their outcomes after it) for the whole
// chunk, where a job per message cost a request, two transactions and
// River's own work (fetch, completion) for each message.
//
// A job settles each of its messages on its own: sent, refused (the
// refusal is recorded in telco_sends, and a retry of the job does not
// send it again), or left for a retry. The job is retried, with River's
// backoff, while any message is left; a retry sends only those, the ones
// sent being answered by the ledger without a request. When
// SendBatchOnce refuses a chunk as a whole for what may be one message's
// fault (an ExternalId reused for another message, a rule of the SDK's,
// a request the service refused as a whole), the worker sends the chunk's
// messages one by one, so that each refusal is the message's own.
//
// # Each message once
//
// A message is unique by project and ExternalId, whatever chunk it is in:
//   - Enqueue inserts the message's row in telco_sends (primary key:
//     project and ExternalId) in the caller's transaction, before the
//     jobs, and puts in a chunk only the messages whose row is new. A
//     message enqueued twice, in one call, in two calls or in two
//     concurrent transactions, is in one chunk: the second insert of the
//     key waits for the first transaction and is skipped when it commits.
//     The rows outlive River's job rows, so a message is not enqueued
//     again after River has deleted its finished job.
//   - The send ledger makes any job that still holds a message twice
//     harmless (two chunks inserted by hand with the same message, a job
//     worked again after a crash): SendBatchOnce finds the message sent,
//     or held by another attempt, which it waits for, or in doubt, which it
//     looks up before sending.
//
// Chunk jobs are not River unique jobs. A unique key over a chunk (its
// content) would only catch the same chunk inserted twice, which the
// ledger makes harmless already; and it would silently drop the job of a
// message re-enqueued after its telco_sends row was deleted, whenever an
// old job of the same content remains. Jobs of one message ([SendArgs],
// inserted with River's Insert or by earlier versions of Enqueue) stay
// unique by project and ExternalId, and [MessageWorker] works them.
//
// # Sending once
//
// Sending once is the SDK's: the Worker sends with Messages.SendBatchOnce
// on a telco.Client whose ledger is a [Ledger], the SDK's send ledger kept
// in Postgres beside River's tables and shared by every process.
// SendBatchOnce records every attempt there before its request, so a job
// that River works again, for whatever reason (an error, a timeout, a
// crashed worker whose job was rescued, a stop that interrupted it and
// gave its attempt back), finds what its earlier attempts did: a message
// sent is not sent again, an attempt another process still holds is
// waited for, and one that may have reached the service is looked up, once
// the settle time has passed since it, before anything is sent. The
// ledger works without River too: Clients built with
// telco.WithLedger(riversend.NewLedger(pool)) send each ExternalId once
// between them, and with the workers.
//
//	client, err := telco.NewClient(sid, token, telco.WithLedger(riversend.NewLedger(pool)))
//	w, err := riversend.NewWorker(riversend.WorkerConfig{Client: client})
//	river.AddWorker(workers, w)
//	river.AddWorker(workers, w.MessageWorker()) // jobs of one message, if any
//
// # River's settings
//
// What riversend tunes lives in its jobs, so that a River client with
// River's defaults works them well:
//   - the chunk (the job's arguments): DefaultChunkSize messages, the
//     telco CLI's chunk, or EnqueueOptions.ChunkSize;
//   - the insert options: the queue [Queue]; River's default priority and
//     MaxAttempts (25, with its backoff: retries are safe with the ledger,
//     and how late a message is still worth sending is the caller's
//     choice, in its River config);
//   - the Worker's Timeout, [DefaultJobTimeout] (WorkerConfig.JobTimeout),
//     which River uses in place of its Config.JobTimeout for these jobs:
//     room for one request's whole attempt timeout and the reconciliation
//     after it.
//
// The caller's River config needs only the queue, with its MaxWorkers:
// each worker slot holds one chunk, so 10 slots are 1,000 messages in
// flight. River's defaults elsewhere suit: jobs inserted are fetched at
// once (LISTEN/NOTIFY), and a finished chunk frees its slot for the next.
// One River default is worth changing: RescueStuckJobsAfter, an hour,
// is how long a dead worker's jobs wait before another process takes
// them (and their messages in doubt are looked up); a few minutes above
// the Worker's Timeout is enough.
//
// # Where outcomes live
//
// The ledger's rows are the table telco_sends, created by [Migrate]. Each
// holds the ledger's record of one message (Outcome.LedgerState and the
// columns of telco.LedgerRecord) and a summary state for people: enqueued,
// sent (with the MessageSid), refused (with the service's code) or failed
// (River ran out of attempts); see [State] for how the two relate. Query
// it with [Lookup] and [CountStates], or with SQL. River's job rows are
// deleted some time after they finish; telco_sends rows are kept until
// you delete them.
//
// Before the ledger, the worker looked a message up itself when River's
// attempt number was above 1, which a stop resets and which says nothing
// of when the service will show the message: WorkerConfig.Finder,
// WorkerConfig.ClockSkew and DefaultClockSkew went with that, and
// WorkerConfig.Client, checked by NewWorker, replaced them.
//
// This is a module of its own (github.com/telcosdk/telco/contrib/riversend)
// so that the SDK gains no dependency on River or pgx.
package riversend
