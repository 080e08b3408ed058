package telcotest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// The fake at the speed of a stub: each operation below is made through
// the SDK against the fake, holding a realistic amount of data, and
// against a stub, a handler that writes the fake's own answer to the same
// request as fixed bytes. The stub is the fastest any fake could be, so
// the ratio of the two is what the fake itself costs a test suite.
// BenchmarkStub has op=X/impl=fake and op=X/impl=stub for benchstat and for
// scripts/bench.sh, which runs them in alternating processes;
// BenchmarkStubRatio alternates the two call by call and reports
// "fake/stub", the fake's throughput as a fraction of the stub's.

// stubCase is one operation against a prepared fake.
type stubCase struct {
	name  string
	setup func(b *testing.B, srv *telcotest.Server, c *telco.Client) func(c *telco.Client) error
}

// stubStore is how many items the fake holds for the listings and Get.
const stubStore = 10_000

func stubCases() []stubCase {
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return []stubCase{
		{"MessagesSend", func(b *testing.B, srv *telcotest.Server, _ *telco.Client) func(*telco.Client) error {
			p := &telco.SendMessageParams{From: "+61400000001", To: "+61400000002", Text: "Your order has shipped"}
			return func(c *telco.Client) error {
				_, err := c.Messages.Send(ctx, srv.PropertySid, p)
				return err
			}
		}},
		{"MessagesGet", func(b *testing.B, srv *telcotest.Server, c *telco.Client) func(*telco.Client) error {
			srv.SeedInbound(srv.PropertySid, "+61400000099", start, stubStore)
			last, err := c.Messages.Find(ctx, srv.PropertySid, &telco.FindMessagesParams{DateFrom: start,
				DateTo: start.Add(stubStore * time.Second), ListParams: telco.ListParams{Count: 1, Skip: stubStore - 1}})
			if err != nil || len(last.Items) != 1 {
				b.Fatal("seeding:", err)
			}
			sid := last.Items[0].MessageSid // the newest: the far end of a scan
			return func(c *telco.Client) error {
				_, err := c.Messages.Get(ctx, sid)
				return err
			}
		}},
		{"MessagesFind", func(b *testing.B, srv *telcotest.Server, _ *telco.Client) func(*telco.Client) error {
			srv.SeedInbound(srv.PropertySid, "+61400000099", start, stubStore)
			p := &telco.FindMessagesParams{DateFrom: start, DateTo: start.Add(stubStore * time.Second),
				ListParams: telco.ListParams{Count: 200, Skip: stubStore / 2}}
			return func(c *telco.Client) error {
				_, err := c.Messages.Find(ctx, srv.PropertySid, p)
				return err
			}
		}},
		{"PropertiesList", func(b *testing.B, srv *telcotest.Server, _ *telco.Client) func(*telco.Client) error {
			srv.SeedProperties(stubStore)
			p := &telco.ListParams{Count: 50, Skip: stubStore / 2}
			return func(c *telco.Client) error {
				_, err := c.Properties.List(ctx, p)
				return err
			}
		}},
		{"PropertiesGet", func(b *testing.B, srv *telcotest.Server, _ *telco.Client) func(*telco.Client) error {
			sids := srv.SeedProperties(stubStore)
			sid := sids[len(sids)-1]
			return func(c *telco.Client) error {
				_, err := c.Properties.Get(ctx, sid)
				return err
			}
		}},
		{"OnlineLoginsList", func(b *testing.B, srv *telcotest.Server, c *telco.Client) func(*telco.Client) error {
			for i := range 200 {
				if _, err := c.OnlineLogins.Create(ctx, srv.PropertySid, loginParams("ops"+strconv.Itoa(i)+"@example.com")); err != nil {
					b.Fatal(err)
				}
			}
			p := &telco.ListParams{Count: 50, Skip: 100}
			return func(c *telco.Client) error {
				_, err := c.OnlineLogins.List(ctx, p)
				return err
			}
		}},
		{"SipTrunksList", func(b *testing.B, srv *telcotest.Server, c *telco.Client) func(*telco.Client) error {
			for i := range 200 {
				if _, err := c.SipTrunks.Create(ctx, srv.PropertySid, ipTrunk("trunk "+strconv.Itoa(i))); err != nil {
					b.Fatal(err)
				}
			}
			p := &telco.ListSipTrunksParams{ListParams: telco.ListParams{Count: 50, Skip: 100}}
			return func(c *telco.Client) error {
				_, err := c.SipTrunks.List(ctx, srv.PropertySid, p)
				return err
			}
		}},
		{"PortingStatus", func(b *testing.B, srv *telcotest.Server, c *telco.Client) func(*telco.Client) error {
			from := time.Now().Add(-time.Hour)
			for i := range 200 {
				if _, err := c.Porting.Submit(ctx, srv.PropertySid, portingParams("+612"+strconv.Itoa(90000000+i))); err != nil {
					b.Fatal(err)
				}
			}
			p := &telco.PortingStatusParams{From: from, To: time.Now().Add(time.Hour), ListParams: telco.ListParams{Count: 20, Skip: 100}}
			return func(c *telco.Client) error {
				_, err := c.Porting.StatusByProperty(ctx, srv.PropertySid, p)
				return err
			}
		}},
	}
}

// captureTransport keeps the last answer's body.
type captureTransport struct{ last []byte }

func (t *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	t.last, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(t.last))
	return resp, err
}

// stubPair prepares the fake for tc and a stub answering what the fake
// answered to the same call, with an SDK client for each.
func stubPair(b *testing.B, tc stubCase) (call func(*telco.Client) error, fake, stub *telco.Client) {
	srv := telcotest.NewServer()
	b.Cleanup(srv.Close)
	call = tc.setup(b, srv, srv.Client())
	capture := &captureTransport{}
	if err := call(srv.Client(telco.WithHTTPClient(&http.Client{Transport: capture}))); err != nil {
		b.Fatal(err)
	}
	body := capture.last
	st := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	b.Cleanup(st.Close)
	stub, err := telco.NewClient(srv.AccountSid, srv.Token, telco.WithBaseURL(st.URL))
	if err != nil {
		b.Fatal(err)
	}
	return call, srv.Client(), stub
}

// BenchmarkStub makes each call against the fake and against the stub,
// reporting the process's CPU time per call too ("cpu-ns/op").
func BenchmarkStub(b *testing.B) {
	for _, tc := range stubCases() {
		for _, impl := range []string{"fake", "stub"} {
			b.Run("op="+tc.name+"/impl="+impl, func(b *testing.B) {
				call, fake, stub := stubPair(b, tc)
				c := fake
				if impl == "stub" {
					c = stub
				}
				if err := call(c); err != nil { // warm the connection
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				c0, ok0 := processCPU()
				for i := 0; i < b.N; i++ {
					if err := call(c); err != nil {
						b.Fatal(err)
					}
				}
				// The process's CPU time per call, fake or stub and client
				// together: steadier than ns/op on a shared machine.
				if c1, ok1 := processCPU(); ok0 && ok1 {
					b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// BenchmarkStubRatio alternates fake and stub call by call (fake first on
// even rounds, stub first on odd) and reports "fake/stub": the stub's time
// over the fake's, the fake's throughput as a fraction of the stub's, and
// "fake/stub-cpu", the same in the process's CPU time (client, fake and
// stub together), which waiting for a busy core does not inflate.
func BenchmarkStubRatio(b *testing.B) {
	for _, tc := range stubCases() {
		b.Run("op="+tc.name, func(b *testing.B) {
			call, fake, stub := stubPair(b, tc)
			clients := [2]*telco.Client{fake, stub}
			var wall, cpu [2]time.Duration
			cpuOK := true
			for _, c := range clients {
				if err := call(c); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := 0; k < 2; k++ {
					side := k ^ (i & 1)
					c0, ok0 := processCPU()
					t0 := time.Now()
					if err := call(clients[side]); err != nil {
						b.Fatal(err)
					}
					wall[side] += time.Since(t0)
					c1, ok1 := processCPU()
					cpu[side] += c1 - c0
					cpuOK = cpuOK && ok0 && ok1
				}
			}
			b.StopTimer()
			if wall[0] > 0 {
				b.ReportMetric(float64(wall[1])/float64(wall[0]), "fake/stub")
			}
			if cpuOK && cpu[0] > 0 {
				b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "fake/stub-cpu")
			}
		})
	}
}
