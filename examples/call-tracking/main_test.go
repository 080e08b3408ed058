package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

func TestCallTrackingOnTheEmbeddedFake(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, config{followFor: 10 * time.Second}))
	s := out.String()
	assert.Contains(t, s, "No credentials: following the fake service")
	for _, from := range []string{"+61412345001", "+61412345002", "+61412345003", "+61412345004", "+61412345005"} {
		assert.Contains(t, s, from+" -> 61299990000", "the calls there at the start and those that arrived")
	}
	assert.Less(t, strings.Index(s, "+61412345002"), strings.Index(s, "+61412345003"), "in the order written")
	assert.Contains(t, s, "Busy")
	assert.Contains(t, s, "(google/cpc/spring-sale)")
	assert.Regexp(t, `5 call\(s\); resume with TELCO_CALLS_TOKEN=\S+`, s)
}

// With credentials the example follows the given project, from a saved
// Token when there is one, and stops when its time is up.
func TestCallTrackingResumesFromAToken(t *testing.T) {
	srv := telcotest.NewServer()
	defer srv.Close()
	useEnv(t, map[string]string{telco.EnvAccountSid: srv.AccountSid, telco.EnvToken: srv.Token, telco.EnvBaseURL: srv.URL})
	srv.AddCall(srv.PropertySid, telco.Call{From: "+61400000001", To: "61299990000"})
	page, err := srv.Client().Calls.ListByProperty(context.Background(), srv.PropertySid, nil)
	require.NoError(t, err)
	srv.AddCall(srv.PropertySid, telco.Call{From: "+61400000002", To: "61299990000"})

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, config{live: true, propertySid: srv.PropertySid, startToken: page.Token, followFor: 200 * time.Millisecond, interval: 20 * time.Millisecond}))
	s := out.String()
	assert.Contains(t, s, "Following the service at "+srv.URL)
	assert.NotContains(t, s, "+61400000001", "written before the Token")
	assert.Contains(t, s, "+61400000002 -> 61299990000")
	assert.Contains(t, s, "1 call(s)")
}
