// Package aimock starts aimock (the npm package @copilotkit/aimock), an
// independent mock of the model APIs — OpenAI Chat Completions and
// Responses, Anthropic Messages, Gemini — for agentsnap's tests of live
// recording: a server nobody here wrote, so a wire format is not only
// checked against agentsnap's own idea of it.
//
// The package is installed beside this file (npm ci --prefix
// internal/aimock). Without it the specs that need it skip, saying how to
// install it, unless AGENTSNAP_REQUIRE_AIMOCK=1 (CI), which fails them.
package aimock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// InstallHint says how to install aimock.
const InstallHint = "install Node.js 20 or later and aimock: npm ci --prefix internal/aimock (from the repository root); CI sets AGENTSNAP_REQUIRE_AIMOCK=1 to require it"

// ErrMissing is returned (wrapped) by Start when aimock is not installed.
var ErrMissing = errors.New("aimock is not installed")

// Server is a running aimock.
type Server struct {
	// URL is its origin, such as http://127.0.0.1:41234; each API is
	// under its usual path (/v1/chat/completions, /v1/messages, …).
	URL  string
	cmd  *exec.Cmd
	done chan error
	log  *strings.Builder
}

// Bin returns the path of aimock's command, or an error wrapping
// ErrMissing that says how to install it.
func Bin() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("%w: cannot locate internal/aimock; %s", ErrMissing, InstallHint)
	}
	bin := filepath.Join(filepath.Dir(file), "node_modules", ".bin", "llmock")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%w (%s not found); %s", ErrMissing, bin, InstallHint)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("%w: node is not on PATH; %s", ErrMissing, InstallHint)
	}
	return bin, nil
}

// Required reports whether the environment asks for aimock's specs to run
// (AGENTSNAP_REQUIRE_AIMOCK=1) rather than skip when it is missing.
func Required() bool { return os.Getenv("AGENTSNAP_REQUIRE_AIMOCK") == "1" }

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// Start runs aimock on a free loopback port with the fixture file at
// fixtures (aimock's own format) and returns once it listens. Stop it with
// Stop. ctx bounds the start only.
func Start(ctx context.Context, fixtures string) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", "0", "--fixtures", fixtures, "--log-level", "info")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, done: make(chan error, 1), log: &strings.Builder{}}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("aimock: starting %s: %w", bin, err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
		s.done <- cmd.Wait()
	}()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	select {
	case s.URL = <-found:
		return s, nil
	case err := <-s.done:
		return nil, fmt.Errorf("aimock exited before it listened (%v): %s", err, s.log.String())
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("aimock did not listen within 30 s: %s", s.log.String())
	}
}

// Stop ends the server and waits for it.
func (s *Server) Stop() {
	_ = s.cmd.Process.Kill()
	<-s.done
}
