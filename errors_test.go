package telco

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPIErrorFromResponseStatus(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "POST", "/v2/Properties", 400, fixture(t, "error_unknown_time_zone.json"))
	_, err := c.Properties.Create(context.Background(), &CreatePropertyParams{Name: "n", MainDomain: "d.example", TimeZone: "Mars/Olympus"})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "Properties.Create", ae.Op)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeUnknownTimeZone, ae.Code)
	assert.Contains(t, ae.Message, "not a recognised time zone")
	require.Len(t, ae.Fields, 1)
	assert.Equal(t, FieldError{Code: CodeUnknownTimeZone, FieldName: "TimeZone", Message: "Unknown time zone."}, ae.Fields[0])
	assert.Nil(t, ae.Body, "a decoded body is not kept")
	assert.Equal(t, CodeUnknownTimeZone, ErrorCode(err))
	assert.Contains(t, err.Error(), "telco: Properties.Create: 400")
	assert.Contains(t, err.Error(), "UNKNOWN_TIME_ZONE")
	assert.Contains(t, err.Error(), "TimeZone")
	assert.False(t, errors.Is(err, ErrMaybeSent), "a 400 means the service did not act")
}

func TestAPIErrorFieldNamesOnly(t *testing.T) {
	ae := decodeAPIError("Properties.Create", 400, fixture(t, "error_parameter_required.json"))
	assert.Equal(t, CodeParameterRequired, ae.Code)
	assert.Equal(t, []FieldError{{FieldName: "Name"}}, ae.Fields)
}

func TestAPIErrorAtTopLevel(t *testing.T) {
	ae := decodeAPIError("Messages.Send", 403, fixture(t, "error_top_level.json"))
	assert.Equal(t, CodeForbidden, ae.Code)
	assert.Equal(t, "The account is not enabled for SMS.", ae.Message)
	assert.Equal(t, 403, ae.StatusCode)
}

func TestAPIErrorFromHTMLPage(t *testing.T) {
	c, mt := newMockClient(t)
	page := fixture(t, "error_proxy_500.html")
	reply(mt, "GET", "/v2/Properties/"+testProp, 500, page)
	_, err := c.Properties.Get(context.Background(), testProp)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 500, ae.StatusCode)
	assert.Empty(t, ae.Code)
	assert.Equal(t, "Internal Server Error", ae.Message)
	assert.Equal(t, page, ae.Body)
	assert.Empty(t, ErrorCode(err))
}

func TestAPIErrorBodyIsBounded(t *testing.T) {
	c, mt := newMockClient(t)
	var read countingReader
	read.left = 8 << 20
	mt.RegisterResponder("GET", testBase+"/v2/Properties/"+testProp, func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 502, Body: &read, Header: http.Header{}, Request: r}, nil
	})
	_, err := c.Properties.Get(context.Background(), testProp)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 502, ae.StatusCode)
	assert.Len(t, ae.Body, 4<<10, "at most 4 KiB of the body is kept")
	assert.LessOrEqual(t, read.n, int64(1<<20), "at most 1 MiB of an error body is read")
}

type countingReader struct{ n, left int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.left)
	for i := range p[:k] {
		p[i] = 'x'
	}
	r.left -= k
	r.n += k
	return int(k), nil
}

func (r *countingReader) Close() error { return nil }

func TestUndecodableSuccessBody(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Properties/"+testProp, 200, []byte("<html>maintenance</html>"))
	_, err := c.Properties.Get(context.Background(), testProp)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 200, ae.StatusCode)
	assert.Equal(t, []byte("<html>maintenance</html>"), ae.Body)
	assert.NotNil(t, errors.Unwrap(ae), "the JSON error is kept")
	assert.False(t, errors.Is(err, ErrMaybeSent), "a GET changes nothing")

	// For a send, a 2xx means the message went out even if the answer is garbled.
	reply(mt, "POST", "/v2/Properties/"+testProp+"/Messages", 200, []byte("{"))
	_, err = c.Messages.Send(context.Background(), testProp, &SendMessageParams{To: "+61499999999", Text: "x"})
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, ErrMaybeSent)
}

func TestEmptySuccessBodyWhereOneIsExpected(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Properties/"+testProp, 200, nil)
	_, err := c.Properties.Get(context.Background(), testProp)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Message, "empty")

	reply(mt, "GET", "/v2/Messages/MG1", 200, []byte(`{"Other":{}}`))
	_, err = c.Messages.Get(context.Background(), "MG1")
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Message, "no Message")
}

func TestUnauthorizedWithEmptyBody(t *testing.T) {
	c, mt := newMockClient(t)
	reply(mt, "GET", "/v2/Properties/"+testProp, 401, nil)
	_, err := c.Properties.Get(context.Background(), testProp)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 401, ae.StatusCode)
	assert.Equal(t, "Unauthorized", ae.Message)
	assert.NotContains(t, err.Error(), testToken)
}

func TestErrorCode(t *testing.T) {
	assert.Empty(t, ErrorCode(nil))
	assert.Empty(t, ErrorCode(errors.New("plain")))
	wrapped := fmt.Errorf("outer: %w", &APIError{Code: CodeForbidden})
	assert.Equal(t, CodeForbidden, ErrorCode(wrapped))
	assert.Equal(t, CodeInvalidPhoneNumberFormat,
		ErrorCode(&APIError{Fields: []FieldError{{FieldName: "To"}, {Code: CodeInvalidPhoneNumberFormat}}}))
	ve := &ValidationError{Op: "Messages.Send", Fields: []FieldError{{Code: CodeParameterRequired, FieldName: "To"}}}
	assert.Equal(t, CodeParameterRequired, ErrorCode(fmt.Errorf("x: %w", ve)))
}

func TestErrorStrings(t *testing.T) {
	ve := &ValidationError{Op: "Messages.Send", Fields: []FieldError{
		{Code: CodeInvalidPhoneNumberFormat, FieldName: "To", Message: "To must be E.164"},
		{Code: CodeParameterRequired, FieldName: "Text", Message: "Text is required"},
	}}
	assert.Equal(t, "telco: Messages.Send: invalid parameters: To must be E.164 (INVALID_PHONENUMBER_FORMAT); Text is required (PARAMETER_REQUIRED)", ve.Error(),
		"a message that names its field is not prefixed with the name again")
	other := &ValidationError{Op: "Porting.StatusByProperty", Fields: []FieldError{
		{Code: CodeParameterInvalid, FieldName: "Date_To", Message: "must come after the start"},
	}}
	assert.Equal(t, "telco: Porting.StatusByProperty: invalid parameters: DateTo (Date_To): must come after the start (PARAMETER_INVALID)", other.Error())

	batch := &APIError{Op: "Messages.SendBatch", Code: "X", Message: "m"}
	assert.Equal(t, "telco: Messages.SendBatch: rejected: X: m", batch.Error())
	maybe := &APIError{Op: "Messages.Send", StatusCode: 503, maybeSent: true}
	assert.Equal(t, "telco: Messages.Send: 503 Service Unavailable (request may have reached the service)", maybe.Error())
	assert.ErrorIs(t, maybe, ErrMaybeSent)
}

// FuzzDecodeAPIError: whatever the body, decoding yields an error with the
// status and never keeps more than 4 KiB.
func FuzzDecodeAPIError(f *testing.F) {
	for _, name := range []string{"error_unknown_time_zone.json", "error_parameter_required.json",
		"error_top_level.json", "error_proxy_500.html", "send_batch_messages_error.json"} {
		f.Add(fixture(f, name), 400)
	}
	f.Add([]byte(`{"ResponseStatus":null}`), 500)
	f.Add([]byte(`{"ResponseStatus":{"Errors":[null,{"FieldName":3}]}}`), 400)
	f.Add([]byte(strings.Repeat("a", 5000)), 502)
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		ae := decodeAPIError("Op", status, body)
		if ae == nil {
			t.Fatal("nil error")
		}
		if ae.StatusCode != status {
			t.Fatalf("status %d, want %d", ae.StatusCode, status)
		}
		if len(ae.Body) > 4<<10 {
			t.Fatalf("kept %d bytes", len(ae.Body))
		}
		if ae.Code == "" && ae.Message == "" && len(ae.Fields) == 0 && len(body) > 0 && len(ae.Body) == 0 && http.StatusText(status) == "" {
			t.Fatalf("lost the body entirely: %q", body)
		}
		_ = ae.Error()
	})
}

// FuzzBatchElement: any element decodes to exactly one of Message and Err.
func FuzzBatchElement(f *testing.F) {
	f.Add([]byte(`{"MessageSid":"MG1","Status":"Processing"}`))
	f.Add([]byte(`{"ErrorCode":"INVALID_PHONENUMBER_FORMAT","Message":"bad","Errors":[{"FieldName":"To"}]}`))
	f.Add([]byte(`{"Message":{"MessageSid":"MG2"}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r := decodeBatchElement("Messages.SendBatch", raw)
		if (r.Message == nil) == (r.Err == nil) {
			t.Fatalf("want exactly one of Message and Err for %q: %+v", raw, r)
		}
		if r.Err != nil && r.Err.StatusCode != 0 {
			t.Fatalf("a per-element error has StatusCode 0")
		}
	})
}

// fakeMessages is a hand-written MessagesAPI, as downstream tests write
// them; its Send fails the way a send cut off after the request left does.
type fakeMessages struct {
	MessagesAPI
	err error
}

func (f fakeMessages) Send(context.Context, string, *SendMessageParams) (*Message, error) {
	return nil, f.err
}

func TestMaybeSentForHandWrittenFakes(t *testing.T) {
	t.Parallel()
	orig := &APIError{Op: "Messages.Send", StatusCode: http.StatusBadGateway, Code: "UPSTREAM", Message: "bad gateway"}
	var api MessagesAPI = fakeMessages{err: MaybeSent(orig)}
	_, err := api.Send(context.Background(), testProp, &SendMessageParams{})

	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
	assert.Equal(t, "UPSTREAM", ae.Code)
	assert.ErrorIs(t, err, ErrMaybeSent)
	assert.Contains(t, err.Error(), ErrMaybeSent.Error(), "printed like the SDK's own")
	assert.NotErrorIs(t, orig, ErrMaybeSent, "the caller's value is not changed")

	// Any other error keeps what it matched and gains ErrMaybeSent.
	wrapped := MaybeSent(fmt.Errorf("telco: Messages.Send: %w", io.ErrUnexpectedEOF))
	assert.ErrorIs(t, wrapped, ErrMaybeSent)
	assert.ErrorIs(t, wrapped, io.ErrUnexpectedEOF)
	inner := MaybeSent(fmt.Errorf("context: %w", orig))
	require.ErrorAs(t, inner, &ae)
	assert.Equal(t, "UPSTREAM", ae.Code)
	assert.ErrorIs(t, inner, ErrMaybeSent)

	assert.NoError(t, MaybeSent(nil))
}

// A validation error names each field as it is set in Go, with the
// service's name beside it where the two differ.
func TestValidationErrorNamesTheGoField(t *testing.T) {
	t.Parallel()
	c, err := NewClient(testSid, testToken, WithBaseURL("https://telco.invalid"))
	require.NoError(t, err)
	_, err = c.Messages.Find(bg, testProp, &FindMessagesParams{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DateFrom (Date_From) is required")
	assert.Contains(t, err.Error(), "DateTo (Date_To) is required")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "Date_From", ve.Fields[0].FieldName, "FieldName keeps the service's name")
	_, err = c.Messages.SendBatchOnce(bg, testProp, []SendMessageParams{{To: "+61499999999", Text: "x"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "msgs[0].ExternalID (Messages[0].ExternalId) is required")
	_, err = c.Messages.Send(bg, testProp, &SendMessageParams{Text: "x"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "To is required (PARAMETER_REQUIRED)", "a name the same in Go is given once")
	assert.NotContains(t, err.Error(), "To: To")
}
