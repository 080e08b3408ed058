package telco

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/telcosdk/telco/internal/rules"
)

// LookupService looks up carrier and porting details of numbers.
type LookupService service

// LookupAPI is the method set of LookupService, for code that wants to
// substitute a fake.
type LookupAPI interface {
	NumberDetails(ctx context.Context, numbers ...string) ([]NumberDetail, error)
}

var _ LookupAPI = (*LookupService)(nil)

// Carrier is a carrier as the numbering regulator's database names it.
type Carrier struct {
	CAC  int    `json:"CAC"`  // carrier access code; -1 when unknown
	Name string `json:"name"` // empty when unknown
}

// NumberDetail is what the national numbering regulator's database says of
// one number.
type NumberDetail struct {
	E164            int64   `json:"e164"` // the number's digits, without +
	AssignedCarrier Carrier `json:"assignedCarrier"`
	// CurrentCarrier may differ from AssignedCarrier after porting.
	CurrentCarrier        Carrier `json:"currentCarrier"`
	NumberingArea         string  `json:"numberingArea"`         // empty when not found
	PortedActionIndicator string  `json:"portedActionIndicator"` // empty when none
	ThirdParty            bool    `json:"thirdParty"`
	AlreadyPorting        int     `json:"alreadyPorting"` // -1 when not applicable
	Reason                string  `json:"reason"`         // context of the result
}

// UnmarshalJSON reads e164 as a number or, tolerantly, a numeric string
// (with or without +), and every integer so, as the SDK reads answers.
func (d *NumberDetail) UnmarshalJSON(b []byte) error {
	var w wireNumberDetail
	if err := decodeLoose(b, &w); err != nil {
		return err
	}
	*d = w.detail()
	return nil
}

// wireNumberDetail is a NumberDetail as it travels. A lookup answer is
// decoded into these, in one pass: NumberDetail's own UnmarshalJSON would
// have encoding/json scan every element twice and allocate for each e164.
type wireNumberDetail struct {
	E164                  flexInt `json:"e164"` // a number or a string, either on the fast pass
	AssignedCarrier       Carrier `json:"assignedCarrier"`
	CurrentCarrier        Carrier `json:"currentCarrier"`
	NumberingArea         string  `json:"numberingArea"`
	PortedActionIndicator string  `json:"portedActionIndicator"`
	ThirdParty            bool    `json:"thirdParty"`
	AlreadyPorting        int     `json:"alreadyPorting"`
	Reason                string  `json:"reason"`
}

func (w *wireNumberDetail) detail() NumberDetail {
	return NumberDetail{E164: int64(w.E164), AssignedCarrier: w.AssignedCarrier, CurrentCarrier: w.CurrentCarrier,
		NumberingArea: w.NumberingArea, PortedActionIndicator: w.PortedActionIndicator, ThirdParty: w.ThirdParty,
		AlreadyPorting: w.AlreadyPorting, Reason: w.Reason}
}

// numberDetailsList is the answer of a lookup: the results under numbers,
// or a bare array.
var numberDetailsList = listOf[wireNumberDetail]("numbers")

// lookupBatch is how many numbers go in one request. The service does not
// state a limit; 100 keeps the query string short.
const lookupBatch = 100

// DefaultLookupConcurrency is how many requests of one NumberDetails call
// are in flight at once without WithLookupConcurrency.
const DefaultLookupConcurrency = 4

// NumberDetails looks up numbers, each in local form (digits) or E.164 with
// +, in order: GET /v2/Numbers/Details?Numbers=a,b,c. More
// than 100 numbers are split into requests of 100, up to
// WithLookupConcurrency of them (default 4) in flight at once, and the
// results returned in the order of numbers. The first request to fail
// cancels the others, and its error is returned, with no results. Each
// answer must hold one result per number asked; a short or long one is an
// *APIError, since the results could not be matched to their numbers.
func (s *LookupService) NumberDetails(ctx context.Context, numbers ...string) ([]NumberDetail, error) {
	const op = "Lookup.NumberDetails"
	if len(numbers) == 0 {
		return nil, lookupCheck(nil).err(op)
	}
	if err := s.client.validateParams(op, func() fieldErrs { return lookupCheck(numbers) }); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	out := make([]NumberDetail, len(numbers))
	chunks := (len(numbers) + lookupBatch - 1) / lookupBatch
	if chunks == 1 {
		if err := s.lookupChunk(ctx, op, numbers, out, 0, 1); err != nil {
			return nil, err
		}
		return out, nil
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next  atomic.Int64 // the next chunk to send
		mu    sync.Mutex
		first error // the first failure; the cancellations it causes are not errors of their own
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel()
		}
		mu.Unlock()
	}
	for range min(s.client.lookupInFlight, chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= chunks {
					return
				}
				if err := ctx.Err(); err != nil {
					// Another chunk failed (first is set) or the caller gave up.
					fail(fmt.Errorf("telco: %s: %w", op, context.Cause(ctx)))
					return
				}
				start := i * lookupBatch
				end := min(start+lookupBatch, len(numbers))
				if err := s.lookupChunk(ctx, op, numbers[start:end], out[start:end], i, chunks); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

// lookupChunk looks up one request's numbers into out, which has room for
// exactly one result each. It is request i (0-based) of n.
func (s *LookupService) lookupChunk(ctx context.Context, op string, numbers []string, out []NumberDetail, i, n int) error {
	r := &call{op: op, method: http.MethodGet, idempotent: true,
		path: "/v2/Numbers/Details", query: &wireLookup{Numbers: numbers}}
	page, err := getList(ctx, s.client, r, numberDetailsList)
	if err != nil {
		return err
	}
	if len(page.Items) != len(numbers) {
		// The results carry no reliable key back to the numbers asked (a
		// local number comes back in E.164), so a short answer would shift
		// every later result onto the wrong number.
		return &APIError{Op: op, StatusCode: http.StatusOK, Message: fmt.Sprintf(
			"%s for %s in request %d of %d (numbers %s to %s)",
			countOf(len(page.Items), "result"), countOf(len(numbers), "number"), i+1, n, numbers[0], numbers[len(numbers)-1])}
	}
	for j := range page.Items {
		out[j] = page.Items[j].detail()
	}
	return nil
}

// wireLookup is the query of a lookup, Numbers=a,b,c.
type wireLookup struct {
	Numbers commaList[string] `url:"Numbers"`
}

// Validation rules of this file's operations: each params type's Validate
// and the check its methods run before sending. validate.go holds the
// shared machinery, internal/rules the rule primitives.

// lookupCheck checks the numbers of a lookup: at least one, each in local
// form or E.164.
func lookupCheck(numbers []string) fieldErrs {
	return rules.LookupNumbers(numbers, newFieldError)
}
