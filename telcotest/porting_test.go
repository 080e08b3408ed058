package telcotest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telcosdk/telco"
)

func portingParams(numbers ...string) *telco.PortingRequestParams {
	p := &telco.PortingRequestParams{
		AuthorisedContactName: "Olive Ops", AuthorisedContactEmail: "ops@example.com",
		DaytimeContactNumber: "+61299999999", CurrentCarrier: "Optus", CurrentCarrierAccountNo: "ACC-1",
		PreferredPortSchedule: telco.PortASAP, CustomerDescription: "move the main line",
		WebhookURL: "http://127.0.0.1:1/porting",
	}
	for _, n := range numbers {
		p.PortingNumbers = append(p.PortingNumbers, telco.PortingNumberParams{Number: n, PortType: telco.PortTypeCatA,
			PortAddress: "1 Martin Place, Sydney NSW 2000", IncomingActionType: telco.IncomingAnsweringPoint, IncomingAnswerPoint: "+61400000000"})
	}
	return p
}

func submit(t *testing.T, c *telco.Client, propertySid string, p *telco.PortingRequestParams) *telco.PortingRequest {
	t.Helper()
	req, err := c.Porting.Submit(testCtx(t), propertySid, p)
	require.NoError(t, err)
	return req
}

func portingWindow() *telco.PortingStatusParams {
	return &telco.PortingStatusParams{From: time.Now().Add(-time.Hour), To: time.Now().Add(time.Hour)}
}

func portingNos(p *telco.Page[telco.PortingRequest]) []string {
	var out []string
	for _, r := range p.Items {
		out = append(out, r.PortingNo)
	}
	return out
}

func TestPorting_SubmitAndStatus(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	before := time.Now().Unix()
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432", "+61298765433"))
	assert.NotEmpty(t, req.PortingNo)
	assert.Equal(t, srv.AccountSid, req.AccountSid)
	assert.Equal(t, srv.PropertySid, req.PropertySid)
	assert.Equal(t, "Olive Ops", req.AuthorisedContactName)
	assert.Equal(t, "ops@example.com", req.AuthorisedContactEmail)
	assert.Equal(t, "Optus", req.CurrentCarrier)
	assert.Equal(t, "ACC-1", req.CurrentCarrierAccountNo)
	assert.Equal(t, telco.PortASAP, req.PreferredPortSchedule)
	assert.Zero(t, req.PreferredPortDate, "no date with ASAP")
	assert.Equal(t, "http://127.0.0.1:1/porting", req.WebhookURL)
	assert.Equal(t, "move the main line", req.CustomerDescription)
	assert.GreaterOrEqual(t, int64(req.Created), before)
	assert.Greater(t, int64(req.PortDate), int64(req.Created), "a port date is scheduled")
	assert.NotEmpty(t, req.Status)
	require.Len(t, req.PortingNumbers, 2)
	n := req.PortingNumbers[0]
	assert.Equal(t, "+61298765432", n.Number)
	assert.Equal(t, telco.PortTypeCatA, n.PortType)
	assert.Equal(t, telco.IncomingAnsweringPoint, n.IncomingActionType)
	assert.Equal(t, "+61400000000", n.IncomingAnswerPoint)
	assert.NotEmpty(t, n.Status)
	assert.NotEmpty(t, n.StatusHistory)

	other, err := c.Properties.Create(ctx, &telco.CreatePropertyParams{Name: "Other", MainDomain: "o.example", TimeZone: "UTC"})
	require.NoError(t, err)
	req2 := submit(t, c, other.PropertySid, portingParams("+61398765432"))
	assert.NotEqual(t, req.PortingNo, req2.PortingNo)

	page, err := c.Porting.StatusByProperty(ctx, srv.PropertySid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, []string{req.PortingNo}, portingNos(page))
	assert.Equal(t, 1, page.TotalCount)
	assert.Equal(t, *req, page.Items[0])

	page, err = c.Porting.StatusByAccount(ctx, srv.AccountSid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, []string{req.PortingNo, req2.PortingNo}, portingNos(page))
	assert.Equal(t, 2, page.TotalCount)

	var all []string
	p := portingWindow()
	p.Count = 1
	for r, err := range c.Porting.StatusByAccountAll(ctx, srv.AccountSid, p) {
		require.NoError(t, err)
		all = append(all, r.PortingNo)
	}
	assert.Equal(t, []string{req.PortingNo, req2.PortingNo}, all)

	_, err = c.Porting.StatusByProperty(ctx, "PR"+strings.Repeat("N", 30), portingWindow())
	requireAPIError(t, err, http.StatusBadRequest, "PROPERTY_NOT_FOUND")
	_, err = c.Porting.StatusByAccount(ctx, "AC"+strings.Repeat("X", 30), portingWindow())
	requireAPIError(t, err, http.StatusBadRequest, telco.CodeAccountNotFound)
}

func TestPorting_SubmitOnDate(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p := portingParams("+61298765432")
	p.PreferredPortSchedule = telco.PortOnDate
	p.PreferredPortDate = time.Date(2031, 3, 15, 0, 0, 0, 0, time.UTC)
	req := submit(t, srv.Client(), srv.PropertySid, p)
	assert.Equal(t, telco.PortOnDate, req.PreferredPortSchedule)
	assert.Equal(t, p.PreferredPortDate.Unix(), int64(req.PreferredPortDate))
	assert.Equal(t, p.PreferredPortDate.Unix(), int64(req.PortDate), "ported on the preferred date")
}

func TestPorting_WindowOutsideFindsNothing(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432"))

	for _, tc := range []struct {
		name     string
		from, to time.Time
		want     []string
	}{
		{"ends before the submission", time.Now().Add(-2 * time.Hour), time.Now().Add(-time.Hour), nil},
		{"starts after the submission", time.Now().Add(time.Hour), time.Now().Add(2 * time.Hour), nil},
		{"around the submission", req.Created.Time().Add(-time.Second), req.Created.Time().Add(2 * time.Second), []string{req.PortingNo}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, get := range []func() (*telco.Page[telco.PortingRequest], error){
				func() (*telco.Page[telco.PortingRequest], error) {
					return c.Porting.StatusByProperty(ctx, srv.PropertySid, &telco.PortingStatusParams{From: tc.from, To: tc.to})
				},
				func() (*telco.Page[telco.PortingRequest], error) {
					return c.Porting.StatusByAccount(ctx, srv.AccountSid, &telco.PortingStatusParams{From: tc.from, To: tc.to})
				},
			} {
				page, err := get()
				require.NoError(t, err)
				assert.Equal(t, tc.want, portingNos(page))
				assert.Equal(t, len(tc.want), page.TotalCount)
			}
		})
	}
}

func TestPorting_RequestNumbersFilter(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	var nos []string
	for i := range 3 {
		nos = append(nos, submit(t, c, srv.PropertySid, portingParams(fmt.Sprintf("+6129876543%d", i))).PortingNo)
	}
	p := portingWindow()
	p.PortingRequestNumbers = []string{nos[2], nos[0]}
	page, err := c.Porting.StatusByProperty(ctx, srv.PropertySid, p)
	require.NoError(t, err)
	assert.Equal(t, []string{nos[0], nos[2]}, portingNos(page), "in submission order")
	assert.Equal(t, 2, page.TotalCount)

	p.PortingRequestNumbers = []string{"PN-UNKNOWN"}
	page, err = c.Porting.StatusByAccount(ctx, srv.AccountSid, p)
	require.NoError(t, err)
	assert.Empty(t, page.Items)

	p.PortingRequestNumbers = nil
	page, err = c.Porting.StatusByProperty(ctx, srv.PropertySid, p)
	require.NoError(t, err)
	assert.Equal(t, nos, portingNos(page))
}

func TestPorting_SetPortingStatus(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	ctx := testCtx(t)
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432", "+61298765433"))
	require.Len(t, req.PortingNumbers[0].StatusHistory, 1)
	initial := req.Status

	assert.True(t, srv.SetPortingStatus(req.PortingNo, "Approved"))
	page, err := c.Porting.StatusByProperty(ctx, srv.PropertySid, portingWindow())
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	got := page.Items[0]
	assert.Equal(t, "Approved", got.Status)
	require.Len(t, got.PortingNumbers, 2)
	for _, n := range got.PortingNumbers {
		assert.Equal(t, "Approved", n.Status)
		require.Len(t, n.StatusHistory, 2, "the change is appended to the history")
		last := n.StatusHistory[1]
		assert.Equal(t, initial, last.FdxStatusFrom)
		assert.Equal(t, "Approved", last.FdxStatusTo)
		assert.NotZero(t, last.Created)
		assert.Equal(t, req.PortingNumbers[0].StatusHistory[0], n.StatusHistory[0], "earlier history is kept")
	}

	assert.False(t, srv.SetPortingStatus("PN-NO-SUCH-REQUEST", "Approved"))
	page, err = c.Porting.StatusByProperty(ctx, srv.PropertySid, portingWindow())
	require.NoError(t, err)
	assert.Equal(t, "Approved", page.Items[0].Status, "an unknown request changes nothing")
}

// Each history entry records one change, so its "from" side is the "to"
// side of the entry before, for the carrier status as for the internal one.
func TestPorting_StatusHistoryChains(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client()
	req := submit(t, c, srv.PropertySid, portingParams("+61298765432"))
	require.True(t, srv.SetPortingStatus(req.PortingNo, "Approved"))
	require.True(t, srv.SetPortingStatus(req.PortingNo, "Completed"))
	require.True(t, srv.SetPortingStatus(req.PortingNo, "Completed"), "the request exists")

	page, err := c.Porting.StatusByProperty(testCtx(t), srv.PropertySid, portingWindow())
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	h := page.Items[0].PortingNumbers[0].StatusHistory
	require.Len(t, h, 3, "setting Completed again adds no entry")
	for i := 1; i < len(h); i++ {
		assert.Equal(t, h[i-1].FdxStatusTo, h[i].FdxStatusFrom, "entry %d FdxStatusFrom", i)
		assert.Equal(t, h[i-1].CarrierPortingStatusTo, h[i].CarrierPortingStatusFrom, "entry %d CarrierPortingStatusFrom", i)
	}
	assert.Equal(t, "Completed", h[2].FdxStatusTo)
}

func TestPorting_ServiceRejectsBadRequests(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(telco.WithClientValidation(false))
	for _, tc := range []struct {
		name        string
		edit        func(p *telco.PortingRequestParams)
		code, field string
	}{
		{"Date schedule without a date", func(p *telco.PortingRequestParams) { p.PreferredPortSchedule = telco.PortOnDate },
			telco.CodeParameterRequired, "PreferredPortDate"},
		{"no schedule", func(p *telco.PortingRequestParams) { p.PreferredPortSchedule = "" },
			telco.CodeParameterRequired, "PreferredPortSchedule"},
		{"missing carrier", func(p *telco.PortingRequestParams) { p.CurrentCarrier = "" },
			telco.CodeParameterRequired, "CurrentCarrier"},
		{"bad contact e-mail", func(p *telco.PortingRequestParams) { p.AuthorisedContactEmail = "nope" },
			telco.CodeParameterInvalid, "AuthorisedContactEmail"},
		{"port type other than Cat-A", func(p *telco.PortingRequestParams) { p.PortingNumbers[0].PortType = "Cat-C" },
			telco.CodeParameterInvalid, "PortingNumbers[0].PortType"},
		{"number not E.164", func(p *telco.PortingRequestParams) { p.PortingNumbers[0].Number = "0298765432" },
			telco.CodeInvalidPhoneNumberFormat, "PortingNumbers[0].Number"},
		{"Flow without an action id", func(p *telco.PortingRequestParams) {
			p.PortingNumbers[0].IncomingActionType, p.PortingNumbers[0].IncomingAnswerPoint = telco.IncomingFlow, ""
		}, telco.CodeParameterRequired, "PortingNumbers[0].IncomingActionId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := portingParams("+61298765432")
			tc.edit(p)
			_, err := c.Porting.Submit(testCtx(t), srv.PropertySid, p)
			ae := requireAPIError(t, err, http.StatusBadRequest, tc.code)
			assert.Contains(t, fieldNames(ae.Fields), tc.field)
		})
	}
	page, err := c.Porting.StatusByAccount(testCtx(t), srv.AccountSid, portingWindow())
	require.NoError(t, err)
	assert.Empty(t, page.Items, "no rejected request was stored")

	// The status window is the service's to check too.
	_, err = c.Porting.StatusByProperty(testCtx(t), srv.PropertySid, &telco.PortingStatusParams{From: time.Now()})
	ae := requireAPIError(t, err, http.StatusBadRequest, telco.CodeParameterRequired)
	assert.Contains(t, fieldNames(ae.Fields), "To")
}
