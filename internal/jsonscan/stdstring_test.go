package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var _ = Describe("AppendStdString", func() {
	std := func(s string) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		Expect(enc.Encode(s)).To(Succeed())
		return string(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
	}

	It("writes every string as encoding/json does with HTML escaping off (AppendHTMLString: on, as Marshal), and AppendString alike but for backspace and form feed", func() {
		var all []byte
		for c := range 0x80 {
			all = append(all, byte(c))
		}
		cases := []string{"", string(all), "\b\f", "<&>", "bad \xff\xfe\xe2\x82", "\u2028\u2029", "café 🙂", "\xed\xa0\x80"}
		r := rand.New(rand.NewPCG(1, 2))
		for range 2000 {
			b := make([]byte, r.IntN(12))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			cases = append(cases, string(b))
		}
		// Runs of plain text with one byte of each kind planted at every
		// offset, so that each lane of the eight-byte fast path and each
		// tail length meets it.
		for n := range 26 {
			for at := range n {
				for _, c := range []byte{0, 0x1f, ' ', '"', '\\', '<', '>', '&', 0x7f, 0x80, 0xe2, 0xff, '!', '=', '[', ']'} {
					b := []byte(strings.Repeat("abcdefgh", 4)[:n])
					b[at] = c
					cases = append(cases, string(b))
				}
			}
		}
		// AppendString, which writes every log line, is the same but for
		// \b and \f, which logs have always held as \u0008 and \u000c.
		logForm := strings.NewReplacer(`\\`, `\\`, `\b`, `\u0008`, `\f`, `\u000c`)
		for _, s := range cases {
			Expect(string(jsonscan.AppendStdString([]byte("x"), s))).To(Equal("x"+std(s)), "%q", s)
			Expect(string(jsonscan.AppendString([]byte("x"), s))).To(Equal("x"+logForm.Replace(std(s))), "%q", s)
			marshalled, err := json.Marshal(s) // HTML escaping on
			Expect(err).NotTo(HaveOccurred())
			Expect(string(jsonscan.AppendHTMLString([]byte("x"), s))).To(Equal("x"+string(marshalled)), "%q", s)
		}
	})
})

var _ = Describe("AppendCompact", func() {
	DescribeTable("compacts as encoding/json's Compact does, and refuses what it refuses",
		func(text string) {
			var want bytes.Buffer
			wantErr := json.Compact(&want, []byte(text))
			got, err := jsonscan.AppendCompact([]byte("x"), []byte(text))
			Expect(err != nil).To(Equal(wantErr != nil), "%q: ours %v, encoding/json %v", text, err, wantErr)
			if wantErr == nil {
				Expect(string(got)).To(Equal("x" + want.String()))
			} else {
				Expect(string(got)).To(Equal("x"))
			}
		},
		entries(append(validityCases,
			" {\n \"type\" : \"object\" ,\t\"d\": \"a few  words\\t \\\" x\" , \"a\" : [ 1 , 2.5e3 , true , null , { } ] }\r\n",
			`{"<&>":"\u003c"}`, "\"\xe2\x80\xa8\"", `[ "a" , "b" ]`)),
	)
})
