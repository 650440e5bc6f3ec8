package placeholder_test

import (
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/placeholder"
)

var _ = Describe("Defaults", func() {
	var base string
	BeforeEach(func() {
		base = GinkgoT().TempDir()
		work := filepath.Join(base, "home", "proj")
		Expect(os.MkdirAll(work, 0o755)).To(Succeed())
		GinkgoT().Chdir(work)
		GinkgoT().Setenv("HOME", filepath.Join(base, "home"))
		GinkgoT().Setenv("TMPDIR", filepath.Join(base, "t")+"/")
	})

	It("lists the working, home and temporary folders cleaned, longest first", func() {
		Expect(placeholder.Defaults()).To(Equal([]placeholder.Pair{
			{Path: filepath.Join(base, "home", "proj"), Name: "{{cwd}}"},
			{Path: filepath.Join(base, "home"), Name: "{{home}}"},
			{Path: filepath.Join(base, "t"), Name: "{{tmp}}"},
		}))
	})

	It("replaces a folder inside another before its parent", func() {
		in := "cd " + base + "/home/proj/src && ls " + base + "/home/.cache " + base + "/t/x"
		Expect(string(placeholder.Apply([]byte(in), placeholder.Defaults()))).
			To(Equal("cd {{cwd}}/src && ls {{home}}/.cache {{tmp}}/x"))

		parentFirst := slices.Clone(placeholder.Defaults())
		slices.Reverse(parentFirst)
		Expect(string(placeholder.Apply([]byte(in), parentFirst))).To(HavePrefix("cd {{home}}/proj/src"),
			"the order matters, which is why Defaults sorts")
	})

	It("leaves out a root folder, which would rewrite every separator", func() {
		GinkgoT().Setenv("TMPDIR", "/")
		for _, p := range placeholder.Defaults() {
			Expect(p.Name).NotTo(Equal("{{tmp}}"))
		}
	})
})

var _ = Describe("Apply", func() {
	pairs := []placeholder.Pair{{Path: "/home/al", Name: "{{home}}"}}

	DescribeTable("replaces a path where it ends a path component",
		func(in, want string) {
			Expect(string(placeholder.Apply([]byte(in), pairs))).To(Equal(want))
		},
		Entry("followed by a separator", "/home/al/notes.txt", "{{home}}/notes.txt"),
		Entry("at the end", "cd /home/al", "cd {{home}}"),
		Entry("in a JSON string", `{"cwd":"/home/al"}`, `{"cwd":"{{home}}"}`),
		Entry("before a JSON escape", `"/home/al\n/home/al\t"`, `"{{home}}\n{{home}}\t"`),
		Entry("at the end of a sentence", "It is in /home/al.", "It is in {{home}}."),
		Entry("every occurrence", "/home/al:/home/al/bin", "{{home}}:{{home}}/bin"),
		Entry("not in a longer name", "/home/alice/x /home/al-old /home/al_2 /home/al2", "/home/alice/x /home/al-old /home/al_2 /home/al2"),
		Entry("not before a multi-byte letter", "/home/alé", "/home/alé"),
		Entry("a longer name, then the path itself", "/home/alice /home/al", "/home/alice {{home}}"),
	)

	It("changes nothing, and does not write to its input, when no path occurs", func() {
		in := []byte(`{"type":"turn/start","data":{"turn":1}}`)
		orig := slices.Clone(in)
		out := placeholder.Apply(in, []placeholder.Pair{{Path: "/work/main", Name: "{{cwd}}"}, {Path: "/tmp", Name: "{{tmp}}"}})
		Expect(out).To(Equal(orig))
		Expect(in).To(Equal(orig))
	})

	It("does not write to its input when it replaces", func() {
		in := []byte("/tmp/a /tmp/b")
		out := placeholder.Apply(in, []placeholder.Pair{{Path: "/tmp", Name: "T"}})
		Expect(string(out)).To(Equal("T/a T/b"))
		Expect(string(in)).To(Equal("/tmp/a /tmp/b"))
	})

	It("skips a pair with an empty path instead of inserting its name everywhere", func() {
		Expect(string(placeholder.Apply([]byte("abc"), []placeholder.Pair{{Path: "", Name: "{{x}}"}}))).To(Equal("abc"))
	})

	It("can delete a path with an empty name", func() {
		Expect(string(placeholder.Apply([]byte("/tmp/x"), []placeholder.Pair{{Path: "/tmp", Name: ""}}))).To(Equal("/x"))
	})
})
