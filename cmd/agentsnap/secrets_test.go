package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sentKey is the key the CLI sends when the placement under test is not
// one it sends; it is a secret too.
const sentKey = "sk-sent-by-the-cli-0123456789"

// cliPlacement puts key where a user of the CLI can: a key variable, or
// the base URL given by --base-url or AGENTSNAP_BASE_URL. It returns the
// environment and the --base-url flag value (empty: from the environment)
// for an endpoint at base.
type cliPlacement struct {
	name   string
	source string // how a refusal names the key's source
	place  func(base, key string) (map[string]string, string)
}

func cliEnv(v string) cliPlacement {
	return cliPlacement{v, v, func(base, key string) (map[string]string, string) {
		return map[string]string{"AGENTSNAP_API_KEY": sentKey, v: key}, base
	}}
}

var cliPlacements = []cliPlacement{
	cliEnv("AGENTSNAP_API_KEY"), cliEnv("OPENAI_API_KEY"), cliEnv("DEEPSEEK_API_KEY"),
	cliEnv("ANTHROPIC_API_KEY"), cliEnv("GEMINI_API_KEY"), cliEnv("GOOGLE_API_KEY"),
	{"?key= in --base-url", "the key= query parameter of --base-url", func(base, key string) (map[string]string, string) {
		return map[string]string{"AGENTSNAP_API_KEY": sentKey}, base + "?key=" + url.QueryEscape(key)
	}},
	{"?key= in AGENTSNAP_BASE_URL", "the key= query parameter of AGENTSNAP_BASE_URL", func(base, key string) (map[string]string, string) {
		return map[string]string{"AGENTSNAP_API_KEY": sentKey, "AGENTSNAP_BASE_URL": base + "?key=" + key}, ""
	}},
	{"?key= in --base-url, escaped by hand", "the key= query parameter of --base-url", func(base, key string) (map[string]string, string) {
		// Escapes no encoder writes (%6b for k, lower-case hex): only the
		// URL's own text names it.
		return map[string]string{"AGENTSNAP_API_KEY": sentKey}, base + "?key=" + handEscaped(key)
	}},
	{"user info in --base-url", "the password in the user info of --base-url", func(base, key string) (map[string]string, string) {
		return map[string]string{"AGENTSNAP_API_KEY": sentKey}, strings.Replace(base, "http://", "http://leaker:"+key+"@", 1)
	}},
}

// handEscaped escapes the first three bytes of key as %xx in lower-case
// hex, as no encoder does for letters and digits.
func handEscaped(key string) string {
	return fmt.Sprintf("%%%02x%%%02x%%%02x", key[0], key[1], key[2]) + key[3:]
}

// cliLeak records fixtures/custom/leak with agentsnap record --live from
// an endpoint that leaks key, with extra flags, and checks that the key is
// in no file under the temporary tree (fixture and side store) and in
// neither output, and that the recording was refused exactly when the key
// would have been written.
func cliLeak(p cliPlacement, leak leaktest.Leak, flags []string, n int) {
	key := fmt.Sprintf("k3y-cli-%03d-0123456789abcdefXYZ", n)
	root := GinkgoT().TempDir()
	dir, err := leaktest.Scenario(root)
	Expect(err).NotTo(HaveOccurred())
	end := leaktest.New(leak, key, DeferCleanup)
	environ, baseURL := p.place(end.URL+"/v1", key)
	args := []string{"record", "fixtures/custom/leak", "--live", "--model", "m"}
	if baseURL != "" {
		args = append(args, "--base-url", baseURL)
	}
	r := cli(root, environ, append(args, flags...)...)

	traces, err := leaktest.Traces(key, []string{root}, r.stdout, r.stderr)
	Expect(err).NotTo(HaveOccurred())
	Expect(traces).To(BeEmpty(), "the key (or half of it) shows in these:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	Expect(end.Requests()).To(BeNumerically(">", 0), "the endpoint was called")
	keep := strings.Join(flags, " ") == "--keep-live-failures"
	store := len(flags) == 2
	switch {
	case leak.Streamed():
		Expect(r.code).To(Equal(1), r.stderr)
		Expect(r.stderr).To(ContainSubstring("refusing to save: a secret appears in the recording: the value of " + p.source + " "))
		Expect(r.stdout).NotTo(ContainSubstring("recorded"))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
		if store {
			Expect(r.stderr).To(ContainSubstring("nothing was kept: the fixture is unchanged, and the 1 session this recording had stored in the side store (none holding the secret) was deleted"))
			Expect(storedSessions(root, flags[1])).To(BeEmpty())
		} else {
			Expect(r.stderr).To(ContainSubstring("; nothing was written (check what the model, a tool or an MCP server echoed"))
		}
	case leak.Fails() && !keep:
		Expect(r.code).To(Equal(1), r.stderr)
		Expect(r.stderr).To(ContainSubstring("the live model failed"))
		if store {
			Expect(r.stderr).To(ContainSubstring("the fixture is unchanged; the side store keeps the 1 session recorded so far"))
			Expect(r.stderr).NotTo(ContainSubstring("nothing was saved"))
		} else {
			Expect(r.stderr).To(ContainSubstring("nothing was saved, the fixture is unchanged"))
		}
	default:
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(filepath.Join(dir, fixture.RootLog)).To(BeARegularFile())
	}
}

// storedSessions lists the sessions of the store spec (relative to root).
func storedSessions(root, spec string) []string {
	GinkgoHelper()
	r := cli(root, nil, "inspect", strings.SplitN(spec, ":", 2)[1])
	if r.code != 0 {
		Expect(r.stderr).To(Or(ContainSubstring("no such file"), ContainSubstring("holds no")), "an empty or missing store")
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(r.stdout, "\n") {
		if id, ok := strings.CutPrefix(line, "session   "); ok {
			out = append(out, id)
		}
	}
	return out
}

func cliLeakEntries() []TableEntry {
	var out []TableEntry
	n := 0
	add := func(p cliPlacement, leak leaktest.Leak, flags ...string) {
		n++
		out = append(out, Entry(fmt.Sprintf("%s, leaked in the %s %v", p.name, leak, flags), p, leak, flags, n))
	}
	for _, p := range cliPlacements {
		for _, leak := range leaktest.ServerLeaks {
			if leak == leaktest.Server {
				continue // retried with real backoff: one entry below
			}
			add(p, leak)
			add(p, leak, "--keep-live-failures")
			if p.name == "OPENAI_API_KEY" || strings.HasPrefix(p.name, "?key=") {
				add(p, leak, "--store", "jsonl:side")
				add(p, leak, "--store", "sqlite:side.db")
			}
		}
	}
	add(cliPlacements[7], leaktest.Server, "--keep-live-failures")
	return out
}

var _ = Describe("agentsnap record --live against an endpoint that leaks the credential", Label("secrets"), func() {
	DescribeTable("never writes or prints it, and refuses a recording that would hold it",
		cliLeak, cliLeakEntries())

	It("names the endpoint with the query's names and no value", func() {
		const key = "k3y-cli-endpoint-0123456789abcdef"
		root := GinkgoT().TempDir()
		_, err := leaktest.Scenario(root)
		Expect(err).NotTo(HaveOccurred())
		end := leaktest.New(leaktest.Auth401, key, DeferCleanup)
		r := cli(root, map[string]string{"AGENTSNAP_API_KEY": sentKey}, "record", "fixtures/custom/leak", "--live", "--model", "m", "--base-url", end.URL+"/v1?key="+key+"&alt=json")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("record: live model m at " + end.URL + "/v1?key=[REDACTED]&alt=[REDACTED], OpenAI Chat Completions (key from AGENTSNAP_API_KEY)\n"))
		Expect(r.stderr).To(ContainSubstring("failed at " + end.URL + "/v1?key=[REDACTED]&alt=[REDACTED]\n"))
	})
})

var _ = Describe("agentsnap serve --record --live against an endpoint that leaks the credential", Label("secrets"), func() {
	DescribeTable("never writes or prints it",
		func(leak leaktest.Leak, keep bool) {
			const key = "k3y-serve-0123456789abcdefXYZ"
			end := leaktest.New(leak, key, DeferCleanup)
			dir := filepath.Join(GinkgoT().TempDir(), "billing", "live")
			Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Reply OK."], "agent": {"system": "You are terse."}}`), 0o644)).To(Succeed())
			args := []string{"serve", dir, "--record", "--runtime", "go-agent", "--live", "--base-url", end.URL + "/v1?key=" + key, "--model", "m"}
			if keep {
				args = append(args, "--keep-live-failures")
			}
			s := startServe(map[string]string{"AGENTSNAP_API_KEY": sentKey}, args...)
			agentErr := fmt.Sprint(runGoAgent(context.Background(), s.url, dir))
			code, out, stderr := s.stop()
			traces, err := leaktest.Traces(key, []string{filepath.Dir(dir)}, out, stderr, agentErr)
			Expect(err).NotTo(HaveOccurred())
			Expect(traces).To(BeEmpty(), "stdout:\n%s\nstderr:\n%s\nthe agent's error: %s", out, stderr, agentErr)
			if leak.Streamed() {
				Expect(code).To(Equal(1))
				Expect(stderr).To(ContainSubstring("refusing to save: a secret appears in the recording: the value of the key= query parameter of --base-url"))
				Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
			}
		},
		Entry("in the answer", leaktest.Text, false),
		Entry("cut across chunks", leaktest.Split, false),
		Entry("in a 401 body, kept", leaktest.Auth401, true),
	)
})
