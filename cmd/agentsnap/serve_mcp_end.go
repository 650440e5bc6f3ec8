package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"
)

// liveSession is a live server's session serve opened, and the headers of
// the last request sent on it (its Authorization, Mcp-Protocol-Version),
// which the request that ends it carries too.
type liveSession struct {
	url    string
	header http.Header
}

// mcpEndWait bounds how long serve, once stopped, waits for the live
// servers to end their sessions: a server that does not answer must not
// hold serve past its exit deadline (200 ms after SIGINT); it ends the
// session itself when it times out. A variable only for the suite, whose
// in-process serves run under the race detector on a loaded machine,
// where a DELETE to a server that answers at once can miss 100 ms.
var mcpEndWait = 100 * time.Millisecond

// endSessions starts ending every live session serve opened — a DELETE
// with its Mcp-Session-Id, as an MCP client ends a Streamable HTTP
// session — all at once, and returns without waiting: wait returns when
// each has an answer or mcpEndWait has passed, and must be called before
// serve exits. A server that refuses (405: it ends sessions itself) or no
// longer knows the session (404) is left alone; any other failure is
// noted with logf, before wait returns.
func (e *mcpEndpoint) endSessions(logf func(format string, args ...any)) (wait func()) {
	e.mu.Lock()
	opened := e.opened
	e.opened = nil
	e.mu.Unlock()
	if len(opened) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcpEndWait)
	var wg sync.WaitGroup
	for key, ls := range opened {
		wg.Go(func() {
			err := endSession(ctx, e.client, ls, key[1])
			if err != nil {
				logf("the live MCP server %s did not end its session %s (%v); it ends it itself when it times out", key[0], key[1], err)
			}
		})
	}
	return func() {
		wg.Wait()
		cancel()
	}
}

// endSession sends the DELETE that ends the live session id.
func endSession(ctx context.Context, client *http.Client, ls liveSession, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, ls.url, nil)
	if err != nil {
		return err
	}
	maps.Copy(req.Header, ls.header)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("no answer within %s", mcpEndWait)
		}
		return err
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2, resp.StatusCode == http.StatusMethodNotAllowed, resp.StatusCode == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("it answered %s", resp.Status)
}
