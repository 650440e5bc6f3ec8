package placeholder_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/placeholder"
)

var _ = Describe("Apply, exactly", func() {
	pairs := []placeholder.Pair{{Path: "/home/al", Name: "{{home}}"}}

	DescribeTable("replaces a path whole or not at all",
		func(in, want string) {
			Expect(string(placeholder.Apply([]byte(in), pairs))).To(Equal(want))
		},
		Entry("the input is the path and nothing else", "/home/al", "{{home}}"),
		Entry("not before an upper-case letter", "/home/alB /home/alZ/x", "/home/alB /home/alZ/x"),
		Entry("not at the end of a longer path", "/srv/home/al/notes.txt ls /mnt/backup/home/al", "/srv/home/al/notes.txt ls /mnt/backup/home/al"),
		Entry("not after a name, a dot or a tilde", "x/home/al ./home/al ~/home/al", "x/home/al ./home/al ~/home/al"),
		Entry("after a quote, a space, an equals sign or a colon", `"/home/al" cd /home/al HOME=/home/al path:/home/al/x`,
			`"{{home}}" cd {{home}} HOME={{home}} path:{{home}}/x`),
		Entry("after a JSON escape that ends a line or a tab", `a\n/home/al/x\t/home/al`, `a\n{{home}}/x\t{{home}}`),
		Entry("the same path twice in a row only where each begins", "/home/al/home/al", "{{home}}/home/al"),
	)

	It("replaces a folder inside the temporary folder once, not its own name inside it", func() {
		tmp := []placeholder.Pair{{Path: "/tmp", Name: "{{tmp}}"}}
		Expect(string(placeholder.Apply([]byte("/tmp/tmp/x"), tmp))).To(Equal("{{tmp}}/tmp/x"))
	})

	It("returns its input itself, not a copy, when no path occurs", func() {
		in := []byte("/home/alice and /srv")
		out := placeholder.Apply(in, pairs)
		Expect(string(out)).To(Equal("/home/alice and /srv"))
		Expect(&out[0]).To(BeIdenticalTo(&in[0]), "nothing to replace costs no copy")
	})
})
