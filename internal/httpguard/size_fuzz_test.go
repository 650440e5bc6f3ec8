package httpguard_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/internal/httpguard"
)

// FuzzParseSize feeds arbitrary text to ParseSize, as serve's --max-body
// gives it. It must never panic; an error quotes the text and gives a
// size to use instead. A size it accepts is within MinMaxBody and
// MaxMaxBody, and FormatSize writes it so that ParseSize reads it back
// the same. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzParseSize$' -fuzztime 60s ./internal/httpguard
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{
		"32MiB", "512KiB", "1GiB", "1048576", "1024", "1023", "1k", "1K", "2g", "2G", "1025b", " 64 mib ", "64 MiB",
		"1073741824", "1073741825", "1048577KiB", "9223372036854775807", "9223372036854775807g", "99999999999999999999",
		"+2048", "-2048", "0x400", "1e6", "", "MiB", "1.5MiB", "1TiB", "\u0661\u0660\u0662\u0664",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := httpguard.ParseSize(s)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
				t.Fatalf("ParseSize(%q): the error does not quote the size: %v", s, err)
			}
			return
		}
		if n < httpguard.MinMaxBody || n > httpguard.MaxMaxBody {
			t.Fatalf("ParseSize(%q) = %d, outside %d..%d", s, n, httpguard.MinMaxBody, httpguard.MaxMaxBody)
		}
		back, err := httpguard.ParseSize(httpguard.FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d, written %q, which reads back as %d, %v", s, n, httpguard.FormatSize(n), back, err)
		}
	})
}
