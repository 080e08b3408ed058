// Package riversend sends SMS through telco-go from a River job queue on
// Postgres: many workers in many processes, one database, every message
// sent once.
//
// The intent to send is a River job, inserted with [Enqueue] inside the
// caller's own transaction, so it is committed with the caller's data or
// not at all. Jobs are unique by project and ExternalId: enqueueing the
// same message twice inserts one job. A [Worker] sends each job with
// Messages.SendOnce, which settles "may have been sent" by looking the
// ExternalId up before any resend; a job that is retried by River (after a
// transport failure, a timeout, or a crashed worker whose job was rescued)
// looks its ExternalId up first and sends only when the service has no
// message with it.
//
// The outcome of every message is kept in the table telco_sends, created
// by [Migrate] beside River's own tables: its state (enqueued, sent,
// refused, failed), the MessageSid, or the service's refusal code. Query it
// with [Lookup] and [CountStates], or with SQL. River's job rows are
// deleted some time after they finish; telco_sends rows are kept until you
// delete them, and they also keep a message from being enqueued again
// after River has forgotten its job.
//
// This is a module of its own (github.com/telcosdk/telco/contrib/riversend)
// so that the SDK gains no dependency on River or pgx.
package riversend
