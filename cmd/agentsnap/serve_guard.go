package main

// What serve admits, as its flags give it: a loopback --addr, and the
// --allow-origin and --max-body that httpguard enforces on each request.

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/agentsnap/agentsnap/internal/httpguard"
)

// loopback refuses an --addr that is not a loopback address: serve hands
// out recorded (or live) answers to whoever connects.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v; give HOST:PORT, such as 127.0.0.1:0", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--addr %q is not a loopback address; serve listens on this machine only (127.0.0.1, [::1] or localhost), such as --addr 127.0.0.1:8080", addr)
}

// loopbackListener checks where a listener landed ("localhost" resolves).
func loopbackListener(ln net.Listener) error {
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--addr resolved to %s, which is not a loopback address; give 127.0.0.1:PORT", ln.Addr())
}

// originsFlag is --allow-origin: the origins, as a browser sends them.
type originsFlag []string

func (o *originsFlag) String() string { return strings.Join(*o, ",") }

func (o *originsFlag) Set(s string) error {
	n, err := httpguard.ParseOrigin(s)
	if err != nil {
		return guardFlagError(err)
	}
	*o = append(*o, n)
	return nil
}

// sizeFlag is --max-body, in bytes.
type sizeFlag int64

func (z *sizeFlag) String() string { return httpguard.FormatSize(int64(*z)) }

func (z *sizeFlag) Set(s string) error {
	n, err := httpguard.ParseSize(s)
	if err != nil {
		return guardFlagError(err)
	}
	*z = sizeFlag(n)
	return nil
}

// guardFlagError is httpguard's refusal of a flag's value without its package
// prefix: the flag package names the flag.
func guardFlagError(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), "httpguard: "))
}
