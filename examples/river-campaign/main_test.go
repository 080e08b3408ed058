package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/telcosdk/telco/contrib/riversend/pgtest"
	"github.com/telcosdk/telco/telcotest"
)

func noEnv(string) string { return "" }

// figures reads the JSON lines run printed.
func figures(t *testing.T, out *bytes.Buffer) []figure {
	t.Helper()
	var fs []figure
	dec := json.NewDecoder(out)
	for dec.More() {
		var f figure
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// TestCampaignOnOneTwoAndFourNodes runs a generated campaign on 1, 2 and 4
// nodes against a fake given by the environment, as `telco mock --env`
// gives one, and checks that each run sent every message, once.
func TestCampaignOnOneTwoAndFourNodes(t *testing.T) {
	srv := telcotest.NewTestServer(t)
	srv.Inject(1<<30, telcotest.Fault{Kind: telcotest.FaultLatency, Delay: 5 * time.Millisecond, Op: "Messages.SendBatch"})
	env := map[string]string{"TELCO_ACCOUNT_SID": srv.AccountSid, "TELCO_TOKEN": srv.Token,
		"TELCO_BASE_URL": srv.URL, "TELCO_PROPERTY_SID": srv.PropertySid}
	for k, v := range env {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	const n = 250 // three chunks
	err := run(ctx, &out, func(k string) string { return env[k] }, config{dsn: pgtest.Start(t), generate: n,
		from: "Campaign", nodes: []int{1, 2, 4}, maxWorkers: 10, jsonOut: true})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	fs := figures(t, &out)
	if len(fs) != 3 {
		t.Fatalf("%d figures, want one for each of 1, 2 and 4 nodes", len(fs))
	}
	for i, f := range fs {
		if f.Nodes != []int{1, 2, 4}[i] || f.Messages != n || f.Enqueued != n || f.Sent != n || f.Refused+f.Failed != 0 || f.PerSecond <= 0 {
			t.Errorf("figure %d: %+v, want every one of %d messages enqueued and sent", i, f, n)
		}
	}
	srv.WaitIdle()
	stored := map[string]int{}
	for _, m := range srv.Messages(srv.PropertySid) {
		stored[m.ExternalID]++
	}
	if len(stored) != 3*n {
		t.Errorf("%d distinct ExternalIds stored, want %d", len(stored), 3*n)
	}
	for id, c := range stored {
		if c != 1 {
			t.Errorf("ExternalId %s stored %d times", id, c)
		}
	}
}

// TestCampaignFromCSV sends the CSV's campaign (a duplicate row, a
// refused number) on the embedded fake, twice: the second run enqueues
// nothing, as every message was enqueued before.
func TestCampaignFromCSV(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, &out, noEnv, config{dsn: pgtest.Start(t), csvPath: "testdata/campaign.csv", from: "Campaign",
		nodes: []int{2, 1}, maxWorkers: 4})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"embedded fake service",
		"2 node(s): 4 of 5 messages enqueued",
		"1 node(s): 0 of 5 messages enqueued",
		"the campaign 3 sent, 1 refused, 0 failed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Count(out.String(), "the campaign 3 sent, 1 refused, 0 failed") != 2 {
		t.Errorf("the second run changed the campaign's outcome:\n%s", out.String())
	}
}

func TestReadCSVNeedsItsColumns(t *testing.T) {
	if _, err := readCSV(strings.NewReader("id,to,text\n1,+61400000001,hi\n"), "PR", "X"); err == nil {
		t.Fatal("a CSV without external_id was accepted")
	}
	got, err := readCSV(strings.NewReader("text,external_id,to\nhi,a,+61400000001\n"), "PR", "X")
	if err != nil || len(got) != 1 || got[0].ExternalID != "a" || got[0].From != "X" || got[0].Text != "hi" {
		t.Fatalf("readCSV in another column order = %+v, %v", got, err)
	}
}

func TestParseNodes(t *testing.T) {
	got, err := parseNodes("1, 2,4")
	if err != nil || len(got) != 3 || got[2] != 4 {
		t.Fatalf("parseNodes = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "1,,2", "two"} {
		if _, err := parseNodes(bad); err == nil {
			t.Errorf("parseNodes(%q) accepted", bad)
		}
	}
}
