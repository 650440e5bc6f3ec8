package gemini_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/recorder"
)

// leakyGemini is a hostile Gemini endpoint: it answers a recording and
// leaks the key, and every credential the request carried, the way leak
// says — in the answer, cut across events, in a function call's args, in
// a 401 or 500 body, in a response header, or by cutting the connection.
func leakyGemini(leak leaktest.Leak, key string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		payload, answered := leakPayload(r, key)
		switch leak {
		case leaktest.Auth401, leaktest.Server:
			status := http.StatusUnauthorized
			if leak == leaktest.Server {
				status = http.StatusInternalServerError
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": "API key not valid: " + payload, "status": "UNAUTHENTICATED"}})
			w.Write(b)
			return
		case leaktest.Hangup:
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		case leaktest.Header:
			w.Header().Set("X-Echo-Credentials", payload)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(part any, finish bool) {
			cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "index": 0}
			if finish {
				cand["finishReason"] = "STOP"
			}
			b, _ := json.Marshal(map[string]any{"candidates": []any{cand}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		texts := []string{"Done."}
		switch {
		case leak == leaktest.ToolArgs && !answered:
			send(map[string]any{"functionCall": map[string]any{"name": "lookup", "args": map[string]string{"key": payload}}}, true)
			return
		case leak == leaktest.Text && !answered:
			texts = []string{"The key is " + payload + "."}
		case leak == leaktest.Split && !answered:
			texts = nil
			for s := "The key is " + payload + "."; s != ""; {
				n := min(5, len(s))
				texts, s = append(texts, s[:n]), s[n:]
			}
		}
		for i, t := range texts {
			send(map[string]string{"text": t}, i == len(texts)-1)
		}
	}))
	DeferCleanup(srv.Close)
	return srv
}

// leakPayload is what the endpoint leaks for r — key and every credential
// r carries — and whether r brings a function response.
func leakPayload(r *http.Request, key string) (string, bool) {
	parts := []string{key}
	if v := r.Header.Get("X-Goog-Api-Key"); v != "" {
		parts = append(parts, v)
	}
	for _, vs := range r.URL.Query() {
		parts = append(parts, vs...)
	}
	var body struct {
		Contents []struct {
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	answered := false
	if n := len(body.Contents); n > 0 {
		for _, p := range body.Contents[n-1].Parts {
			_, answered = p["functionResponse"]
		}
	}
	return strings.Join(parts, " "), answered
}

// geminiPlacement is where a live Gemini client puts the key.
type geminiPlacement struct {
	name   string
	source string // how a refusal names the key's source
	place  func(cfg *gemini.Config, secrets map[string]string, key string)
}

func envKey(v string) geminiPlacement {
	return geminiPlacement{v, v, func(cfg *gemini.Config, secrets map[string]string, key string) {
		secrets[v] = key
		cfg.APIKey = key
	}}
}

var geminiPlacements = []geminiPlacement{
	envKey("GEMINI_API_KEY"), envKey("GOOGLE_API_KEY"), envKey("AGENTSNAP_API_KEY"),
	{"the key given to the driver", "the x-goog-api-key header", func(cfg *gemini.Config, _ map[string]string, key string) { cfg.APIKey = key }},
	{"an x-goog-api-key header", "the x-goog-api-key header", func(cfg *gemini.Config, _ map[string]string, key string) {
		cfg.Header = http.Header{"X-Goog-Api-Key": {key}}
	}},
	{"?key= in the base URL", "the key= query parameter of the base URL", func(cfg *gemini.Config, _ map[string]string, key string) {
		cfg.BaseURL += "?key=" + url.QueryEscape(key)
	}},
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// leakRecording records a scenario with the reference runtime from an
// endpoint that leaks the key the way leak says, the key where p puts it,
// and checks that the key is nowhere — no file, no error, warning,
// progress or log line — and that the recording was refused exactly when
// the key would have been written.
func leakRecording(p geminiPlacement, leak leaktest.Leak, keep bool, n int) {
	key := fmt.Sprintf("AIza-%02d-0123456789abcdefXYZ", n)
	root := GinkgoT().TempDir()
	dir, err := leaktest.Scenario(root)
	Expect(err).NotTo(HaveOccurred())
	srv := leakyGemini(leak, key)
	var out syncBuffer
	cfg := gemini.Config{
		BaseURL: srv.URL, Model: "gemini-2.5-flash", MaxRetries: 1,
		Sleep:  func(context.Context, time.Duration) error { return nil },
		Logger: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if leak == leaktest.NetError {
		cfg.HTTPClient = leaktest.Client()
	}
	secrets := map[string]string{}
	p.place(&cfg, secrets, key)
	d, err := gemini.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	opts := recorder.LiveOptions(d, gemini.RedactURL(cfg.BaseURL), "gemini-2.5-flash")
	opts.Runtime = agent.Reference
	opts.Provider = gemini.API
	opts.Secrets, opts.Progress, opts.By = secrets, &out, "agentsnap test"
	opts.Logf = func(format string, args ...any) { fmt.Fprintf(&out, format+"\n", args...) }
	opts.KeepLiveFailures = keep

	_, err = recorder.Record(context.Background(), dir, opts)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	traces, werr := leaktest.Traces(key, []string{root}, msg, out.String())
	Expect(werr).NotTo(HaveOccurred())
	Expect(traces).To(BeEmpty(), "the key (or half of it) shows in these; the error: %s\noutput:\n%s", msg, out.String())

	switch {
	case leak.Streamed():
		Expect(err).To(MatchError(recorder.ErrSecret), "the recording would have held the key")
		Expect(msg).To(ContainSubstring("the value of "+p.source+" "), "the refusal names the source")
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	case leak.Fails() && !keep:
		Expect(err).To(MatchError(recorder.ErrLiveFailure))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	default:
		Expect(err).NotTo(HaveOccurred(), "nothing the recording keeps holds the key")
		Expect(filepath.Join(dir, fixture.RootLog)).To(BeARegularFile())
	}
}

func leakEntries() []TableEntry {
	var out []TableEntry
	n := 0
	for _, p := range geminiPlacements {
		for _, leak := range leaktest.Leaks {
			for _, keep := range []bool{false, true} {
				n++
				mode := "plain"
				if keep {
					mode = "--keep-live-failures"
				}
				out = append(out, Entry(fmt.Sprintf("%s, leaked in the %s, %s", p.name, leak, mode), p, leak, keep, n))
			}
		}
	}
	return out
}

var _ = Describe("a Gemini credential in every placement, against an endpoint that leaks it", Label("secrets"), func() {
	DescribeTable("never reaches a file, an error or a log line", leakRecording, leakEntries())

	It("names every credential the driver sends by where it travels", func() {
		d, err := gemini.New(gemini.Config{BaseURL: "https://h?key=AIza-query-0123", APIKey: "AIza-header-0123", Header: http.Header{"X-Goog-User-Project": {"proj-not-a-secret"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Credentials()).To(Equal(map[string]string{
			"the x-goog-api-key header":                "AIza-header-0123",
			"the key= query parameter of the base URL": "AIza-query-0123",
		}))
	})

	It("reads the key from AGENTSNAP_API_KEY, GOOGLE_API_KEY or GEMINI_API_KEY, in that order", func() {
		env := map[string]string{"GEMINI_API_KEY": " gemini-key ", "GOOGLE_API_KEY": "google-key"}
		key, from := gemini.KeyFromEnv(func(k string) string { return env[k] })
		Expect([]string{key, from}).To(Equal([]string{"google-key", "GOOGLE_API_KEY"}))
		delete(env, "GOOGLE_API_KEY")
		key, from = gemini.KeyFromEnv(func(k string) string { return env[k] })
		Expect([]string{key, from}).To(Equal([]string{"gemini-key", "GEMINI_API_KEY"}))
		env["AGENTSNAP_API_KEY"] = "agentsnap-key"
		key, from = gemini.KeyFromEnv(func(k string) string { return env[k] })
		Expect([]string{key, from}).To(Equal([]string{"agentsnap-key", "AGENTSNAP_API_KEY"}))
	})
})
