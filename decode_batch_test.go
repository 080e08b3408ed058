package telco

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceBatch is how a batch answer was read before the one-pass path:
// every element on its own through decodeBatchElement. An answer without an
// array of results is an error (a *refusal when it is the service's error
// envelope).
func referenceBatch(b []byte) ([]BatchResult, error) {
	l := list[json.RawMessage]{shape: batchRaw}
	if err := l.decodeBody(b); err != nil {
		return nil, err
	}
	if !l.ok {
		return nil, errNoBatchResults
	}
	out := make([]BatchResult, len(l.items))
	for i, raw := range l.items {
		out[i] = decodeBatchElement("Messages.SendBatch", raw)
	}
	return out, nil
}

var batchBodies = []string{
	`[{"MessageSid":"MG1","Status":"Processing","Created":1506038400},{"MessageSid":"MG2","To":"+61400000002"}]`,
	`{"Messages":[{"MessageSid":"MG1"}]}`,
	`{"Results":[{"MessageSid":"MG1"}],"TotalCount":1}`,
	`[{"MessageSid":"MG1"},{"ErrorCode":"INVALID_PHONENUMBER_FORMAT","Message":"bad To","Errors":[{"FieldName":"To"}]}]`,
	`[{"Message":{"MessageSid":"MG3","Status":"Submitted"}}]`,
	`[{"MessageSid":"MG1"},{"ResponseStatus":{"ErrorCode":"X","Message":"m"}}]`,
	`[{"MessageSid":"MG1","NumSegments":"2"}]`,
	`[{"MessageSid":"MG1"},17,null,"x"]`,
	`[{"MessageSid":""}]`,
	`[]`,
	`{"Messages":null}`,
	`{"Messages":"x"}`,
	`not json`,
	`{"ResponseStatus":{"ErrorCode":"SerializationException","Message":"Could not deserialize"}}`,
	`{"ResponseStatus":{"ErrorCode":"","Message":"m"}}`,
	`{"ErrorCode":"X","Message":"m","Errors":[{"FieldName":"Messages"}]}`,
	`{"Messages":[{"MessageSid":"MG1"}],"ResponseStatus":{"ErrorCode":"X"}}`,
	`{"Foo":1}`,
	`{}`,
}

func TestBatchAnswerAgreesWithElementByElement(t *testing.T) {
	t.Parallel()
	for _, body := range batchBodies {
		t.Run(body, func(t *testing.T) {
			want, wantErr := referenceBatch([]byte(body))
			a := batchAnswer{op: "Messages.SendBatch"}
			err := a.decodeBody([]byte(body))
			if wantErr != nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, a.results)
		})
	}
}

func TestBatchAnswerOnePassForMessages(t *testing.T) {
	t.Parallel()
	a := batchAnswer{op: "Messages.SendBatch"}
	require.NoError(t, a.decodeBody([]byte(`[{"MessageSid":"MG1","To":"+61400000001","Created":1506038400},{"MessageSid":"MG2"}]`)))
	require.Len(t, a.results, 2)
	assert.Equal(t, "+61400000001", a.results[0].Message.To)
	assert.EqualValues(t, 1506038400, a.results[0].Message.Created)
	assert.Equal(t, "MG2", a.results[1].Message.MessageSid)
	assert.Nil(t, a.results[0].Err)
}

// FuzzBatchAnswer: the one-pass decoder gives exactly what decoding each
// element on its own gives.
func FuzzBatchAnswer(f *testing.F) {
	for _, b := range batchBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		want, wantErr := referenceBatch(body)
		a := batchAnswer{op: "Messages.SendBatch"}
		err := a.decodeBody(body)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, element by element %v", body, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(want, a.results) {
			t.Fatalf("%q: results differ", body)
		}
	})
}
