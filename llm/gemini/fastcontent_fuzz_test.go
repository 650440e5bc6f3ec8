package gemini

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeContent checks that a content fastContent reads is the one
// json.Unmarshal reads, and that decodeContent reads every text as
// json.Unmarshal does: the same Content, an error exactly when it errs.
func FuzzDecodeContent(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","parts":[{"text":"hi"},{"text":" more"}]}`,
		`{"role":"model","parts":[{"text":"think","thought":true},{"text":"a\u00e9\ud83d\ude00","thoughtSignature":"c2ln"},{"thoughtSignature":"eA=="}]}`,
		`{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{"k": [1, null, {"x":"y"}]}},"thoughtSignature":"czE="}]}`,
		`{"parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"v"},"parts":[{"inlineData":{}}]}}],"role":"user"}`,
		`{"parts":[{"functionResponse":{"id":"c1","name":"f","response":{},"willContinue":false,"scheduling":"SILENT"}},{"functionResponse":{"willContinue":null,"scheduling":3,"WillContinue":true}}],"role":"user"}`,
		`{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}},{"fileData":{"fileUri":"u"}},{"executableCode":{}},{"codeExecutionResult":null},{"toolCall":1},{"toolResponse":"x"}]}`,
		`{"role":"user","parts":[{"text":null,"thought":null,"thoughtSignature":null,"functionCall":null,"functionResponse":null}]}`,
		`{"role":"user","parts":[{"functionCall":{"name":null,"args":null}},{"functionResponse":{"response":null}}]}`,
		`{"role":null,"parts":null}`,
		`{"role":"user","parts":[]}`,
		`{"role":"user","parts":[null,{}]}`,
		`{"Role":"user","parts":[{"text":"x"}]}`,
		`{"role":"user","parts":[{"Text":"x"}]}`,
		`{"role":"user","parts":[{"functionCall":{"NAME":"f"}}]}`,
		`{"r\u006fle":"user"}`,
		`{"role":"user","parts":[{"te\u0078t":"x"}]}`,
		`{"role":"user","role":"model"}`,
		`{"role":"user","parts":[{"text":"a","text":"b"}]}`,
		`{"role":"user","parts":[{"thought":"yes"}]}`,
		`{"role":"user","parts":[{"text":1}]}`,
		`{"role":"user","parts":[{"functionCall":[]}]}`,
		`{"role":"user","parts":{}}`,
		`{"role":"user","parts":[1]}`,
		`{"ſole":"x","thoughtſignature":"y"}`,
		`{"role":"user","extra":{"a":[1,2]},"parts":[{"unknown":true,"text":"x"}]}`,
		`{"role":"model","parts":[{"functionCall":{"name":"f","args":` + strings.Repeat(`{"a":`, 9996) + `1` + strings.Repeat(`}`, 9996) + `}}]}`,
		`{"role":"model","parts":[{"functionCall":{"name":"f","args":` + strings.Repeat(`[`, 9997) + strings.Repeat(`]`, 9997) + `}}]}`,
		` {"role":"user"} `,
		`{"role":"user"} x`,
		`{"role":"user",}`,
		`null`,
		`"x"`,
		`{"role":"\xff"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want Content
		wantErr := json.Unmarshal(b, &want)
		var fast Content
		if fastContent(b, &fast) {
			if wantErr != nil {
				t.Fatalf("fastContent reads what encoding/json refuses: %v", wantErr)
			}
			if !reflect.DeepEqual(fast, want) {
				t.Fatalf("fastContent read %#v, encoding/json %#v", fast, want)
			}
		}
		var got Content
		err := decodeContent(b, &got)
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("decodeContent: %#v, %v; encoding/json %#v, %v", got, err, want, wantErr)
		}
		if err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("decodeContent error %v, encoding/json %v", err, wantErr)
		}
	})
}
