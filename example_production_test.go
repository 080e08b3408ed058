package telco_test

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// Client.Do reaches what the SDK has no method for, with the Client's
// authentication, retries and errors. Here it reads a project as raw JSON
// and renames it with a merge patch.
func ExampleClient_Do() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	err := client.Do(ctx, "PATCH", "/v2/Properties/"+srv.PropertySid, map[string]any{"Name": "Renamed"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	var out struct{ Property struct{ Name string } }
	if err := client.Do(ctx, "GET", "/v2/Properties/"+srv.PropertySid, nil, &out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Property.Name)

	err = client.Do(ctx, "GET", "https://elsewhere.example/v2/Properties", nil, nil)
	fmt.Println(telco.ErrorCode(err))
	// Output:
	// Renamed
	// PARAMETER_INVALID
}

// CallInfo records the status, headers and request id of a call without
// changing the method's signature.
func ExampleCaptureResponse() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()

	ctx, info := telco.CaptureResponse(context.Background())
	if _, err := client.Properties.Get(ctx, srv.PropertySid); err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Op, info.StatusCode, info.Attempts, info.RequestID != "")
	// Output:
	// Properties.Get 200 1 true
}

// WithRateLimiter takes anything with Wait(ctx) error, such as
// *rate.Limiter of golang.org/x/time/rate; every attempt waits for it.
func ExampleWithRateLimiter() {
	srv := telcotest.NewServer()
	defer srv.Close()
	var waits atomic.Int32
	limiter := telco.RateLimiterFunc(func(ctx context.Context) error {
		waits.Add(1)
		return nil // a real limiter blocks here until a request may go
	})
	client := srv.Client(telco.WithRateLimiter(limiter))
	for range 3 {
		if _, err := client.Properties.Get(context.Background(), srv.PropertySid); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(waits.Load())
	// Output:
	// 3
}
