// Package riversend sends SMS through telco-go from a River job queue on
// Postgres: many workers in many processes, one database, every message
// sent once.
//
// The intent to send is a River job, inserted with [Enqueue] inside the
// caller's own transaction, so it is committed with the caller's data or
// not at all. Jobs are unique by project and ExternalId: enqueueing the
// same message twice inserts one job.
//
// Sending once is the SDK's: a [Worker] sends each job with
// Messages.SendOnce on a telco.Client whose ledger is a [Ledger], the
// SDK's send ledger kept in Postgres beside River's tables and shared by
// every process. SendOnce records every attempt there before its
// request, so a job that River works again, for whatever reason (an
// error, a timeout, a crashed worker whose job was rescued, a stop that
// interrupted it and gave its attempt back), finds what its earlier
// attempts did: a message sent is not sent again, an attempt another
// process still holds is waited for, and one that may have reached the
// service is looked up, once the settle time has passed since it, before
// anything is sent. The ledger works without River too: Clients built
// with telco.WithLedger(riversend.NewLedger(pool)) send each ExternalId
// once between them, and with the workers.
//
//	client, err := telco.NewClient(sid, token, telco.WithLedger(riversend.NewLedger(pool)))
//	w, err := riversend.NewWorker(riversend.WorkerConfig{Client: client})
//
// The ledger's rows are the table telco_sends, created by [Migrate]. Each
// holds the ledger's record of one message (Outcome.LedgerState and the
// columns of telco.LedgerRecord) and a summary state for people: enqueued,
// sent (with the MessageSid), refused (with the service's code) or failed
// (River ran out of attempts); see [State] for how the two relate. Query
// it with [Lookup] and [CountStates], or with SQL. River's job rows are
// deleted some time after they finish; telco_sends rows are kept until you
// delete them, and they also keep a message from being enqueued again
// after River has forgotten its job.
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
