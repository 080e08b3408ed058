package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/telcosdk/telco/contrib/riversend/internal/pgtest"
)

func TestCampaignFromCSV(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, &out, config{dsn: pgtest.Start(t), csvPath: "testdata/campaign.csv", from: "Campaign",
		workers: 2, concurrency: 4})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"enqueued 4 of 5 messages", "3 sent, 1 refused, 0 failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
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
