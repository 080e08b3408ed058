package riversend

import (
	"time"

	"github.com/telcosdk/telco"
)

// retryAfter is the wait a 429 asked for, when the SDK reports it. This
// SDK version's APIError has no RetryAfter field, so the worker uses
// WorkerConfig.RateLimitWait.
func retryAfter(*telco.APIError) time.Duration { return 0 }
