// Package telco is a typed Go client for the telephony management service:
// number blocks, numbers (read, listed, bought and configured), call flows,
// tracked calls, SMS, projects (properties), portal logins, SIP trunks,
// number porting, addresses and number lookup.
//
// Where the service's documentation does not show an answer's shape (the
// fields of numbers and calls, several envelopes), the SDK's types are
// inferred and say so; they decode tolerantly and keep every member they
// did not understand in an Extra map, so a wrong guess costs no data.
//
// Create one [Client] with [NewClient] and share it: it is safe for
// concurrent use, and its services ([Client.Messages], [Client.Properties],
// ...) share one connection pool, retry policy and logger. Every method
// takes a [context.Context] first; cancelling it ends the call, retries and
// waits included.
//
//	client, err := telco.NewClient(accountSid, token)
//	if err != nil {
//		return err // an empty SID or token, or a bad base URL
//	}
//	msg, err := client.Messages.Send(ctx, propertySid, &telco.SendMessageParams{
//		From: "Acme", To: "+61499999999", Text: "Your order has shipped",
//	})
//
// The Client's services, each with an interface of its methods for fakes:
//
//   - [Client.NumberBlocks] ([NumberBlocksAPI]): search number blocks, buy and route them
//   - [Client.Numbers] ([NumbersAPI]): configure a number (routing, recording, attribution, SMS forwarding, webhooks), read, list and buy numbers
//   - [Client.Messages] ([MessagesAPI]): send SMS (once, by ExternalId, with SendOnce), batch-send, find and read them
//   - [Client.Properties] ([PropertiesAPI]): create, read, list and update projects
//   - [Client.OnlineLogins] ([OnlineLoginsAPI]): create, read, list and update portal logins
//   - [Client.SipTrunks] ([SipTrunksAPI]): create, list, read and update SIP trunks
//   - [Client.Porting] ([PortingAPI]): submit number porting requests and follow their status
//   - [Client.Addresses] ([AddressesAPI]): add, list, read and remove an account's addresses
//   - [Client.Lookup] ([LookupAPI]): carrier and porting details of phone numbers
//   - [Client.Flows] ([FlowsAPI]): a project's call flows, which numbers can be routed to
//   - [Client.Calls] ([CallsAPI]): read and follow calls
//
// # Authentication
//
// Every request carries HTTP Basic credentials: the account SID as user name
// and the API token as password. [NewClient] refuses an empty SID or token,
// a base URL that is not absolute, and plain http:// to a host that is not a
// loopback address, so that a token is never sent in the clear. [WithBaseURL]
// points the client at another host (a [telcotest] server in tests);
// [WithInsecureHTTP] admits plain http to a mock reached by host name, in a
// container or a CI network.
//
// # Errors
//
// A method fails with one of:
//
//   - [*ValidationError]: client-side validation refused the parameters
//     before any request was sent. Each [FieldError] carries the code the
//     service would have answered, so handling one code covers both sides.
//     Turn it off with [WithClientValidation] to let the service decide.
//   - [*APIError]: the service answered with an error status, or with a body
//     the client could not decode. It carries the HTTP status, the service's
//     code (for example [CodeUnknownTimeZone]), its message and its per-field
//     errors.
//   - a transport error (a refused connection, a timeout), wrapped so that
//     errors.Is(err, context.DeadlineExceeded) holds.
//
// Both error types work with [errors.As]; [ErrorCode] returns the service
// code found anywhere in an error's chain, whichever kind it is:
//
//	var apiErr *telco.APIError
//	switch {
//	case telco.ErrorCode(err) == telco.CodeAddressNotFound:
//		// ...
//	case telco.ErrorCode(err) == telco.CodeInvalidPhoneNumberFormat:
//		// ...
//	case errors.As(err, &apiErr):
//		log.Printf("status %d: %s", apiErr.StatusCode, apiErr.Message)
//	}
//
// Key on the code rather than the status: the service answers most errors
// with 400, a not-found included.
//
// [MessagesService.SendBatch] reports each message's own rejection in its
// [BatchResult], in input order, and fails as a whole only when the batch
// does.
//
// # Retries and ErrMaybeSent
//
// Idempotent operations (reads, updates, deletes, number configuration) are
// retried on network errors and on 408, 429 and most 5xx answers, with
// jittered exponential backoff that honours Retry-After, as [RetryPolicy]
// describes; [WithRetryPolicy] changes it and [WithAttemptTimeout] bounds
// each attempt. A request that is not idempotent (an SMS send or batch, a
// create, a porting submission) is retried only when the service cannot
// have acted on it, such as after a failed dial or a 429. When such a
// request fails after it may have reached the service, its error matches
// [ErrMaybeSent]:
//
//	if errors.Is(err, telco.ErrMaybeSent) {
//		// It may have been sent: look for the ExternalID with
//		// Messages.FindByExternalID before sending again, or use
//		// Messages.SendOnce, which does that for you.
//	}
//
// [RetryPolicy].OnRetry is told of each retry before its wait,
// [WithRateLimiter] paces every attempt, [APIError].RetryAfter carries a
// throttling answer's Retry-After, and [CaptureResponse] records a call's status,
// headers and request id; RELIABILITY.md shows them together. For an
// operation the SDK does not cover, [Client.Do] sends any request on the
// same path, retried by its HTTP method: POST as a send, the others as
// reads.
//
// # Sending exactly once
//
// The service has no idempotency keys. [MessagesService.SendOnce] and
// [MessagesService.SendBatchOnce] make a send take effect once, keyed on
// the message's ExternalID (required, and distinct within a batch), even
// when the connection fails after the service acted, and across calls:
//
//	msg, err := client.Messages.SendOnce(ctx, propertySid, &telco.SendMessageParams{
//		From: "Acme", To: "+61499999999", Text: "Your code is 4821", ExternalID: orderID,
//	})
//
// Every attempt is recorded in a [Ledger] before its request: "once"
// holds per ledger. Every Client built without [WithLedger] shares the
// process's memory ledger, its records keyed by base URL, account, project
// and ExternalId; [WithLedger] gives one that processes or machines share
// (the boltledger package's file, contrib/riversend's Postgres table), and
// [MessagesService.FillLedger] or [ReconcilePolicy].LookBack fill a fresh
// one from the service's history. With a record on file a sent
// message is returned without a request, one in doubt is looked up first,
// and the same ExternalId with another message is refused
// ([ErrExternalIDReused]). After a failure that matches [ErrMaybeSent] the
// client waits [ReconcilePolicy].SettleTime after the last attempt, looks
// the ExternalId up ([MessagesService.FindByExternalID]) and sends again
// only when it is not there. The outcome is uncertain only when the
// rounds run out, a look-up keeps failing or the context ends: the error is
// then an [*UnresolvedError], which matches ErrMaybeSent and names the
// ExternalIds. RELIABILITY.md states what holds within one call, one
// process and many, and what does not.
//
// # Many messages, long histories
//
// [MessagesService.SendAll] sends an iterator of messages in chunks
// through SendBatchOnce, several chunks in flight, and yields each
// message's result in input order. [WithParallelPages] keeps several page
// requests in flight when FindAll and the look-ups by ExternalId read
// message history, the messages in the same order: what users wait for is
// round trips.
//
// # Paging and iterators
//
// Listings return one [Page] (or a [NumberBlockPage]) per call, selected by
// [ListParams] (Count and Skip) or by the number-block page fields. Each has
// a twin with the suffix All ([MessagesService.FindAll],
// [PropertiesService.ListAll], ...) that returns an [iter.Seq2] over every
// item, fetching pages lazily, one request per page, and stopping at the last
// page, at the first error, or when the loop breaks:
//
//	for m, err := range client.Messages.FindAll(ctx, propertySid, params) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(m.MessageSid, m.Status)
//	}
//
// # Validation
//
// Every params type with rules has an exported Validate method (for example
// [SendMessageParams.Validate]) that methods call before sending and that
// code can call ahead of time, say to check a form. The rules are the
// service's: E.164 numbers, sender IDs, the SMS schedule window
// ([MaxScheduleAhead], [MaxScheduleAgo]), passwords, SIP trunk CIDRs. Which
// values the service recognises (time zones, countries) is left to it.
// [Segments] counts the SMS segments a text needs before it is sent.
//
// # Time values
//
// The service writes times in two forms, and the SDK keeps both typed:
// [Timestamp] is Unix seconds in UTC (messages, projects, SIP trunks,
// porting), with [Timestamp.Time] and [TimestampOf] to convert; [DateTime]
// is the "/Date(ms+hhmm)/" form of number blocks, which keeps the offset it
// was written with and writes the same form back. Decoding is tolerant
// where the service's documents disagree: both types also read RFC 3339
// and .NET's zone-less "2017-10-01T00:00:00" (as UTC), and a Timestamp
// also reads numeric strings and the "/Date(ms)/" form. Request fields take
// [time.Time]; a zero time means "not set".
//
// # Time zones
//
// A project's TimeZone is a Windows time zone ID ("AUS Eastern Standard
// Time"), not an IANA name. [WindowsZone] and [WindowsZoneForLocation] give
// the Windows ID of an IANA name or a [*time.Location]; [IANAZone] and
// [LoadWindowsZone] go back; [WindowsZones] lists every ID. The mapping is
// generated from the Unicode CLDR table windowsZones (CLDR 48).
//
//	tz, ok := telco.WindowsZone("Australia/Sydney") // "AUS Eastern Standard Time", true
//
// # Webhooks
//
// The service calls URLs you configure: delivery receipts (on a send or on
// a configured number), SMS received on a configured number, responses to
// messages sent from a leased sender ID, and porting status updates.
// [WebhookHandler] is a [net/http.Handler] that decodes those callbacks,
// from a GET query string, a form or a JSON body, into a [MessageEvent] or
// a [PortingEvent] and calls your function for their kind; it answers 2xx
// only when your function returns nil. A callback delivered more than once
// runs your function once ([WebhookHandler.Once]). [DeliveryReceiptHandler],
// [InboundMessageHandler], [LeaseResponseHandler] and
// [PortingUpdateHandler] serve one kind per URL.
//
//	http.Handle("/hooks", &telco.WebhookHandler{
//		DeliveryReceipt: func(ctx context.Context, ev *telco.MessageEvent) error {
//			return markDelivered(ctx, ev.Message.ExternalID, ev.Message.Status)
//		},
//	})
//
// # Testing code that uses this package
//
// Each service has a small interface listing its methods (see the list of
// services above: [MessagesAPI], [PropertiesAPI], ...), which the service
// types satisfy. Code that depends on the interface can be handed a
// hand-written fake in unit tests.
//
// For tests that exercise real requests, the [telcotest] package is an
// in-memory, stateful fake of the whole service on loopback, like
// net/http/httptest: it enforces the service's rules with its error codes.
//
//	srv := telcotest.NewServer()
//	defer srv.Close()
//	client := srv.Client() // a *telco.Client wired to srv
//
// To script exact responses instead, use httpmock
// (github.com/jarcoal/httpmock) as its README shows: a Client built without
// [WithHTTPClient] sends through http.DefaultTransport whenever something
// has replaced it, so httpmock.Activate intercepts it, even a Client built
// before the call, and a request no responder matches fails inside the
// process instead of reaching the real host:
//
//	httpmock.Activate()
//	defer httpmock.DeactivateAndReset()
//	httpmock.RegisterResponder("GET", "https://api.fonedynamics.com/v2/Properties/"+propertySid,
//		httpmock.NewStringResponder(200, `{"Property":{"Name":"Sydney office"}}`))
//	client, err := telco.NewClient(accountSid, token) // intercepted
//
// A test that runs in parallel with others, or that wants its own mock,
// gives [NewClient] a [net/http.Client] whose transport is an
// httpmock.MockTransport with [WithHTTPClient] instead. The package's
// examples show both.
//
// # Observability
//
// [WithTransport] wraps the transport the Client sends through, keeping
// its timeouts and pool, and [CallInfo] tells that RoundTripper which SDK
// operation and attempt each request is: enough for an OpenTelemetry
// transport to make one span per attempt named "telco Messages.Send"
// (examples/otel shows it; the SDK itself depends on no tracing package).
// [WithLogger] logs one record per attempt.
//
// # Secrets
//
// The token, portal login passwords and SIP trunk passwords never appear in
// errors, in log records ([WithLogger] logs an allow-list of fields per
// attempt, never credentials or message text) or in fmt output: [Client],
// [CreateOnlineLoginParams] and [SipCredentials] print their secrets
// redacted with every verb, %#v included.
//
// [telcotest]: https://pkg.go.dev/github.com/telcosdk/telco/telcotest
package telco
