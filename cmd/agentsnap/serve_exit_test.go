//go:build unix

// The specs signal a child process with SIGINT: unix only.

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// exitBound is how soon after SIGINT (or SIGTERM) serve must have exited.
const exitBound = 200 * time.Millisecond

// exitAttempts lets a spec bound by exitBound run a second time: the time
// it measures includes the signal's delivery and this test process noticing
// the exit, which a loaded 2-core machine can each delay by over 100 ms,
// and the recording's fsyncs. A serve slow to exit every time (a shutdown
// that waits 300 ms, say) fails both attempts; a moment of load does not.
var exitAttempts = FlakeAttempts(2)

// hangBound is how long a spec waits for serve to exit at all: a serve
// that never exits fails its spec instead of hanging the suite.
const hangBound = 30 * time.Second

// process is an agentsnap serve process.
type process struct {
	cmd    *exec.Cmd
	url    string
	out    bytes.Buffer // stdout after the URL line; read after exit
	errb   bytes.Buffer
	exited chan error
	copied chan struct{}
	// gone is when serve's stdout reached its end: the kernel closes it
	// as the process exits (serve never closes it itself). Set before
	// copied is closed.
	gone time.Time
}

// startProcess runs "bin serve ARGS" with environ only and reads the URL line.
func startProcess(bin string, environ []string, args ...string) *process {
	GinkgoHelper()
	p := &process{cmd: exec.Command(bin, append([]string{"serve"}, args...)...), exited: make(chan error, 1), copied: make(chan struct{})}
	p.cmd.Env = environ
	p.cmd.Stderr = &p.errb
	stdout, err := p.cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(p.cmd.Start()).To(Succeed())
	DeferCleanup(func() { _ = p.cmd.Process.Kill() })
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	go func() {
		_, _ = io.Copy(&p.out, br)
		p.gone = time.Now()
		close(p.copied)
		p.exited <- p.cmd.Wait()
	}()
	if err != nil {
		<-p.copied
		Fail(fmt.Sprintf("serve printed no URL line (%v): %s", <-p.exited, p.errb.String()))
	}
	// main handles SIGINT and SIGTERM before serve prints its URL: from
	// here on a signal is serve's to handle, not the default exit.
	p.url = strings.TrimSuffix(line, "\n")
	return p
}

// interrupt sends SIGINT and fails unless the process exits within exitBound.
func (p *process) interrupt() {
	GinkgoHelper()
	p.stopWith(os.Interrupt)
}

// stopWith sends sig and fails unless the process exits within exitBound
// of it. The time runs from just before the signal to the end of serve's
// stdout, which the goroutine reading it notes as it sees it. Not a select
// of the exit against a timer: once this race-detected test process gets
// the CPU late, both are ready and the select picks either at random,
// though serve exited in time. A late reader can only add to the time.
func (p *process) stopWith(sig os.Signal) {
	GinkgoHelper()
	sent := time.Now()
	Expect(p.cmd.Process.Signal(sig)).To(Succeed())
	select {
	case <-p.exited: // after gone is set and the process is reaped
	case <-time.After(hangBound):
		Fail(fmt.Sprintf("serve did not exit within %s of %v", hangBound, sig))
	}
	took := p.gone.Sub(sent)
	GinkgoWriter.Printf("serve exited %s after %v\n", took, sig)
	Expect(took).To(BeNumerically("<", exitBound), "serve exited %s after %v; it must exit within %s", took, sig, exitBound)
}

// dial opens a connection to the process's address and writes head.
func (p *process) dial(head string) *bufio.Reader {
	GinkgoHelper()
	u, err := url.Parse(p.url)
	Expect(err).NotTo(HaveOccurred())
	c, err := net.Dial("tcp", u.Host)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	_, err = io.WriteString(c, strings.ReplaceAll(head, "HOST", u.Host))
	Expect(err).NotTo(HaveOccurred())
	return bufio.NewReader(c)
}

const streamRequest = "POST /v1/chat/completions HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"

// Each spec is bounded: a serve that held a frame back would block its
// reads, and the suite would hang instead of naming the spec.
var _ = Describe("agentsnap serve stopped with SIGINT", Ordered, func() {
	var bin string
	environ := []string{"HOME=" + os.TempDir(), "PATH=" + os.Getenv("PATH")}

	BeforeAll(func() {
		bin = agentsnapBinary() // the suite's one build, shared with the other process specs
	})

	It("exits within 200 ms while the agent holds idle connections, and gives its verdict", func(_ SpecContext) {
		p := startProcess(bin, environ, serveFixture, "--runtime", "go-agent")
		// The agent's own client keeps its connections alive after the run.
		Expect(runGoAgent(context.Background(), p.url, serveFixture)).To(Succeed())
		// A keep-alive connection after one answer, one that sent nothing,
		// one halfway through its headers.
		idle := p.dial("GET /v1/models HTTP/1.1\r\nHost: HOST\r\n\r\n")
		resp, err := http.ReadResponse(idle, nil)
		Expect(err).NotTo(HaveOccurred())
		_, _ = io.Copy(io.Discard, resp.Body)
		p.dial("")
		p.dial("POST /v1/chat/completions HTTP/1.1\r\nHost: ")
		p.interrupt()
		Expect(p.cmd.ProcessState.ExitCode()).To(Equal(0), p.out.String()+p.errb.String())
		Expect(p.out.String()).To(Equal("mixed/go-agent: replay matches the recording (3 sessions, 6 model calls)\n"))
	}, exitAttempts, SpecTimeout(time.Minute))

	It("exits within 200 ms while a stream is in progress, and while its client stopped reading one; their turns end aborted", func(_ SpecContext) {
		rootStreaming := make(chan struct{})
		var childSent atomic.Int64
		live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"" + strings.Repeat("la", 32<<10) + "\"}}]}\n\n"
			if !strings.Contains(string(b), "Go on.") {
				// The root's model: a few chunks and the start of the call
				// that creates the child, then it stops mid-answer.
				for range 3 {
					io.WriteString(w, chunk)
				}
				io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"subagent_spawn\",\"arguments\":\"\"}}]}}]}\n\n")
				w.(http.Flusher).Flush()
				close(rootStreaming)
				<-r.Context().Done()
				return
			}
			// The child's model streams without end, as fast as it is read.
			for r.Context().Err() == nil {
				n, err := io.WriteString(w, chunk)
				if err != nil {
					return
				}
				w.(http.Flusher).Flush()
				childSent.Add(int64(n))
			}
		}))
		DeferCleanup(live.Close)
		dir := liveScenario()
		p := startProcess(bin, append(environ, "AGENTSNAP_API_KEY=sk-exit-test-0123456789"),
			dir, "--record", "--runtime", "go-agent", "--live", "--base-url", live.URL+"/v1", "--model", "real-model")
		withHeaders := func(body string, headers ...string) string {
			return fmt.Sprintf(strings.Replace(streamRequest, "\r\n\r\n", "\r\n"+strings.Join(headers, "\r\n")+"\r\n\r\n", 1), len(body), body)
		}
		// The root's stream is read as it comes.
		reading := p.dial(withHeaders(`{"model":"m","stream":true,"messages":[{"role":"user","content":"Reply OK."}]}`, "Agentsnap-Session: root"))
		resp, err := http.ReadResponse(reading, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		// Once the root's client has read the call, its child may name it.
		body := bufio.NewReader(resp.Body)
		for {
			line, err := body.ReadString('\n')
			Expect(err).NotTo(HaveOccurred())
			if strings.Contains(line, `"call_1"`) {
				break
			}
		}
		go func() { _, _ = io.Copy(io.Discard, body) }()
		Eventually(rootStreaming).Should(BeClosed())
		// The child's client never reads.
		p.dial(withHeaders(`{"model":"m","stream":true,"messages":[{"role":"user","content":"Go on."}]}`,
			"Agentsnap-Session: c", "Agentsnap-Parent: root", "Agentsnap-Call: call_1", "Agentsnap-Mode: spawn"))
		// Wait until the child's stream stalls (a few MiB in): serve's writes
		// to its client block, so serve stops reading the model's stream.
		last := int64(-1)
		Eventually(func() bool {
			n := childSent.Load()
			stalled := n > 0 && n == last
			last = n
			return stalled
		}).WithPolling(25 * time.Millisecond).WithTimeout(30 * time.Second).Should(BeTrue())
		p.interrupt()
		// Both turns were cut and end aborted; the recording keeps them, as record does.
		Expect(p.cmd.ProcessState.ExitCode()).To(Equal(0), p.out.String()+p.errb.String())
		Expect(p.out.String()).To(HavePrefix("recorded " + dir + ": 2 sessions, 2 model calls\n"))
		for _, name := range []string{"session.jsonl", "session.1.jsonl"} {
			Expect(readFile(filepath.Join(dir, name))).To(MatchRegexp(`"type":"turn/end".*"kind":"aborted"`), name)
		}
	}, exitAttempts, SpecTimeout(time.Minute))
})
