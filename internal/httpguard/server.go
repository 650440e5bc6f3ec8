package httpguard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Server returns the http.Server to run g in: headers bounded in size
// (MaxHeaderBytes) and time (ReadHeaderTimeout), idle connections closed
// after IdleTimeout. It has no ReadTimeout — g bounds the body itself,
// with a 408 that says why — and no WriteTimeout, which would cut a long
// stream (a recorded hang streams until the agent's own timeout).
func (g *Guard) Server() *http.Server {
	return &http.Server{Handler: g, ReadHeaderTimeout: ReadHeaderTimeout, MaxHeaderBytes: MaxHeaderBytes, IdleTimeout: IdleTimeout}
}

// Stop stops srv, which serves g: it stops accepting, lets requests in
// progress finish for at most grace, then closes every connection —
// idle, half-sent, or streaming to a client that stopped reading —
// cancels the context of every request still running, and waits until
// each has left g — its checks (a look at a chunked DELETE's first byte,
// which the closed connection ends) and the next handler. After Stop, g
// refuses requests with 503.
func (g *Guard) Stop(srv *http.Server, grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		// Streams, clients that stopped reading, and connections that
		// sent nothing yet (which Shutdown waits on for 5 s).
		srv.Close()
	}
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
	g.doHalt()
	g.inflight.Wait()
}

// ParseSize reads a size such as 32MiB, 512KiB, 1GiB or 1048576 (bytes);
// K, M and G are the binary units too, and "1500 bytes", as FormatSize
// writes it, reads back. It is bounded by MinMaxBody and MaxMaxBody.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	digits := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToLower(strings.TrimSpace(t[len(digits):]))
	mult := map[string]int64{"": 1, "b": 1, "bytes": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30}[unit]
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || mult == 0 || strings.ContainsAny(digits, "+-") {
		return 0, fmt.Errorf("httpguard: size %q is not a number of bytes with an optional unit; give such as 32MiB, 512KiB or 1048576", s)
	}
	if n > MaxMaxBody/mult {
		return 0, fmt.Errorf("httpguard: size %q is more than the largest body serve takes, %s", s, FormatSize(MaxMaxBody))
	}
	if n*mult < MinMaxBody {
		return 0, fmt.Errorf("httpguard: size %q is less than the smallest limit, %s; a model request with its conversation needs more", s, FormatSize(MinMaxBody))
	}
	return n * mult, nil
}

// FormatSize writes n bytes in the largest binary unit that divides it,
// or as "1500 bytes".
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
