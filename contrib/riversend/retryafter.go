package riversend

import (
	"time"

	"github.com/telcosdk/telco"
)

// retryAfter is the wait a 429 asked for (its Retry-After, as the SDK
// parsed it); 0 when the answer gave none, and the worker then uses
// WorkerConfig.RateLimitWait.
func retryAfter(ae *telco.APIError) time.Duration {
	if ae == nil {
		return 0
	}
	return ae.RetryAfter
}
