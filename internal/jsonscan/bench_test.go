package jsonscan_test

import (
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// BenchmarkAppendStdString writes what logs are made of: a message digest
// (a request header lists one per message), prose with a quote and a line
// break now and then, and text that is not ASCII.
func BenchmarkAppendStdString(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"digest", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{"prose", strings.Repeat(`The agent "reads" the file, then asks a subagent.\n`, 20)},
		{"unicode", strings.Repeat("Überprüfe die Datei — dann frage 🙂. ", 20)},
		{"cjk", strings.Repeat("读取文件，然后询问子代理。", 20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			buf := make([]byte, 0, 4*len(c.s))
			for b.Loop() {
				buf = jsonscan.AppendStdString(buf[:0], c.s)
			}
		})
	}
}
