package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// screen is what a program running in a pseudo-terminal printed, read as
// it comes so a spec can wait for a prompt instead of sleeping.
type screen struct {
	tty     *os.File // the terminal's controlling side
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{} // a token after each read; closed at the end
	cursor  int           // where the next wait starts looking
}

func newScreen(tty *os.File) *screen {
	s := &screen{tty: tty, changed: make(chan struct{}, 1)}
	go func() {
		defer close(s.changed)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.text.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return // EIO once the program has exited and closed the terminal
			}
		}
	}()
	return s
}

// all returns everything printed so far, with the terminal's "\r\n" as
// "\n".
func (s *screen) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.ReplaceAll(s.text.String(), "\r\n", "\n")
}

// waitFor reads until want appears after the last match, and returns
// what was printed from there up to and including it. It fails the spec
// after a deadline, showing the screen.
func (s *screen) waitFor(want string) string {
	GinkgoHelper()
	deadline := time.After(30 * time.Second)
	for {
		text := s.all()
		if i := strings.Index(text[s.cursor:], want); i >= 0 {
			from := s.cursor
			s.cursor += i + len(want)
			return text[from:s.cursor]
		}
		select {
		case _, open := <-s.changed:
			if !open && !strings.Contains(s.all()[s.cursor:], want) {
				Fail("the program ended without printing " + want + "; the screen:\n" + s.all())
			}
		case <-deadline:
			Fail("waited 30s for " + want + "; the screen:\n" + s.all())
		}
	}
}

// rel is path as the program run in root names it.
func rel(root, path string) string {
	GinkgoHelper()
	r, err := filepath.Rel(root, path)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// press types keys.
func (s *screen) press(keys string) {
	GinkgoHelper()
	_, err := s.tty.Write([]byte(keys))
	Expect(err).NotTo(HaveOccurred())
}

// reviewBinary is the agentsnap command built once for the specs below.
var reviewBinary struct {
	once sync.Once
	path string
	err  error
}

func agentsnapBinary() string {
	GinkgoHelper()
	reviewBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "agentsnap-pty-")
		if err != nil {
			reviewBinary.err = err
			return
		}
		reviewBinary.path = filepath.Join(dir, "agentsnap")
		out, err := exec.Command("go", "build", "-o", reviewBinary.path, ".").CombinedOutput()
		if err != nil {
			reviewBinary.err = errors.New(string(out))
		}
	})
	Expect(reviewBinary.err).NotTo(HaveOccurred())
	return reviewBinary.path
}

var _ = AfterSuite(func() {
	if reviewBinary.path != "" {
		os.RemoveAll(filepath.Dir(reviewBinary.path))
	}
})

// startReview runs "agentsnap review" in root on a new pseudo-terminal,
// with extra environment variables, and returns its screen and a
// function that waits for its exit status.
func startReview(root string, extra ...string) (*screen, func() int) {
	GinkgoHelper()
	cmd := exec.Command(agentsnapBinary(), "review")
	cmd.Dir = root
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "CI", "NO_COLOR", "AGENTSNAP_FORCE_UPDATE":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	Expect(err).NotTo(HaveOccurred())
	exited := make(chan int, 1)
	go func() {
		err := cmd.Wait()
		var exit *exec.ExitError
		switch {
		case err == nil:
			exited <- 0
		case errors.As(err, &exit):
			exited <- exit.ExitCode()
		default:
			exited <- -1
		}
	}()
	DeferCleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill() // the spec failed before the program ended
		}
		tty.Close()
	})
	wait := func() int {
		GinkgoHelper()
		select {
		case code := <-exited:
			return code
		case <-time.After(30 * time.Second):
			Fail("agentsnap review did not exit")
			return -1
		}
	}
	return newScreen(tty), wait
}

const (
	reviewPrompt  = "[a]ccept  [r]eject  [s]kip  [A]ccept all remaining  [q]uit: "
	confirmPrompt = "Accept it anyway? [y/N]: "
)

var _ = Describe("agentsnap review in a terminal", func() {
	It("takes single keys — a accepts, r rejects, s skips — and colours the diff", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child", "spawn/two-sequential")
		g1, p1, t1 := propose(root, "fork/codeword", codewordJAM)
		g2, p2, _ := propose(root, "spawn/one-child", replace("Jupiter", "Saturn"))
		g3, p3, t3 := propose(root, "spawn/two-sequential", replace("Paris", "Lyon"))
		before2, before3 := readFile(g2), readFile(g3)

		s, wait := startReview(root)
		first := s.waitFor(reviewPrompt)
		Expect(first).To(ContainSubstring("[1/3] fork/codeword"))
		Expect(first).To(ContainSubstring("\x1b[31m-    assistant: MARMALADE\x1b[0m"), "removed lines red")
		Expect(first).To(ContainSubstring("\x1b[32m+    assistant: JAM\x1b[0m"), "added lines green")

		s.press("\x1b[A") // an arrow key (ESC [ A) is not "A", accept all
		Expect(s.waitFor(reviewPrompt)).To(ContainSubstring("press one of a, r, s, A, q"))
		s.press("a")
		Expect(s.waitFor(reviewPrompt)).To(SatisfyAll(
			ContainSubstring("a\naccepted: "+rel(root, g1)+" now holds the proposal\n"),
			ContainSubstring("[2/3] spawn/one-child"),
		))
		s.press("r")
		Expect(s.waitFor(reviewPrompt)).To(SatisfyAll(
			ContainSubstring("r\nrejected: removed "+rel(root, p2)+"\n"),
			ContainSubstring("[3/3] spawn/two-sequential"),
		))
		s.press("s")
		s.waitFor("skipped: " + rel(root, p3) + " stays pending\n\nreview: 1 accepted, 1 rejected, 1 left pending\n")
		Expect(wait()).To(Equal(exitOK))

		Expect(readFile(g1)).To(Equal(t1), "accepted: the golden is the proposal")
		Expect(p1).NotTo(BeAnExistingFile())
		Expect(readFile(g2)).To(Equal(before2), "rejected: the golden stays")
		Expect(p2).NotTo(BeAnExistingFile())
		Expect(readFile(g3)).To(Equal(before3), "skipped: both stay")
		Expect(readFile(p3)).To(Equal(t3))
	})

	It("prints no colour with NO_COLOR set, and q leaves everything pending", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		g1, p1, _ := propose(root, "fork/codeword", codewordJAM)
		_, p2, _ := propose(root, "spawn/one-child", replace("Jupiter", "Saturn"))
		before := readFile(g1)

		s, wait := startReview(root, "NO_COLOR=1")
		Expect(s.waitFor(reviewPrompt)).To(ContainSubstring("\n-    assistant: MARMALADE\n+    assistant: JAM\n"))
		s.press("q")
		s.waitFor("review: 0 accepted, 0 rejected, 2 left pending\n")
		Expect(wait()).To(Equal(exitOK))
		Expect(s.all()).NotTo(ContainSubstring("\x1b["))
		Expect(readFile(g1)).To(Equal(before))
		Expect(p1).To(BeAnExistingFile())
		Expect(p2).To(BeAnExistingFile())
	})

	It("asks before accepting a likely mistake: n leaves it pending (exit 1), and A still asks about no harmless one", func() {
		root := fixtureCopy("fork/codeword", "mixed/fork-spawns-grandchild", "spawn/one-child")
		g1, p1, t1 := propose(root, "fork/codeword", longerSeed)
		g2, _, t2 := propose(root, "mixed/fork-spawns-grandchild", replace("Alfama", "Baixa"))
		g3, _, t3 := propose(root, "spawn/one-child", replace("Jupiter", "Saturn"))
		before1 := readFile(g1)

		s, wait := startReview(root)
		Expect(s.waitFor(reviewPrompt)).To(ContainSubstring(`warning: session 1: fork of root via call_fork_1, depth 1: the fork seed changed`))
		s.press("a")
		Expect(s.waitFor(confirmPrompt)).To(ContainSubstring("This proposal looks like a mistake (see the warnings above)."))
		s.press("n")
		Expect(s.waitFor(reviewPrompt)).To(ContainSubstring("n\nleft pending: " + rel(root, p1) + "\n"))
		s.press("A")
		s.waitFor("review: 2 accepted, 0 rejected, 1 left pending\n1 proposal that looked like a mistake left pending")
		Expect(wait()).To(Equal(exitFail))
		Expect(strings.Count(s.all(), confirmPrompt)).To(Equal(1), "A asks only about a likely mistake")
		Expect(readFile(g1)).To(Equal(before1))
		Expect(readFile(p1)).To(Equal(t1))
		Expect(readFile(g2)).To(Equal(t2))
		Expect(readFile(g3)).To(Equal(t3))
	})

	It("accepts a likely mistake confirmed with y", func() {
		root := fixtureCopy("mixed/fork-spawns-grandchild")
		g, p, text := propose(root, "mixed/fork-spawns-grandchild", dropGrandchild)
		s, wait := startReview(root)
		s.waitFor(reviewPrompt)
		s.press("a")
		s.waitFor(confirmPrompt)
		s.press("y")
		s.waitFor("y\naccepted: " + rel(root, g) + " now holds the proposal\n")
		Expect(wait()).To(Equal(exitOK))
		Expect(readFile(g)).To(Equal(text))
		Expect(p).NotTo(BeAnExistingFile())
	})
})
