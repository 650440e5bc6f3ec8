package secret_test

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"

	"github.com/agentsnap/agentsnap/internal/secret"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the credentials of a request's headers, taken apart as a server reads them", func() {
	It("takes the user name of Basic credentials alone, as a key given as the base URL's user (KEY@host) arrives", func() {
		// curl http://sk-user-key-0123@127.0.0.1:PORT/v1 sends "sk-user-key-0123:".
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil)
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("sk-user-key-0123:")))
		s := secret.New()
		s.AddRequest(r, "the agent's request")
		source, _, ok := s.FindString(`{"content":"the key is sk-user-key-0123"}`)
		Expect(ok).To(BeTrue(), "the user name alone is the key")
		Expect(source).To(Equal("the basic user name in the Authorization header of the agent's request"))
	})

	It("takes each cookie's value alone, which a server reads and may echo without its name", func() {
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil)
		r.Header.Set("Cookie", "theme=dark-mode-on; session=sess-cookie-0123456")
		s := secret.New()
		s.AddRequest(r, "the agent's request")
		source, _, ok := s.FindString(`{"content":"your session is sess-cookie-0123456"}`)
		Expect(ok).To(BeTrue(), "the cookie's value without its name")
		Expect(source).To(Equal("the session cookie of the agent's request"))
		Expect(s.Redact("session=sess-cookie-0123456; theme=dark-mode-on")).To(Equal("session=[REDACTED]; theme=[REDACTED]"))
	})
})

var _ = Describe("the credentials of a base URL's user info", func() {
	It("takes them as the Basic credentials a client sends them in, which a server may echo", func() {
		// Go's client turns the user info into Authorization: Basic when
		// the API takes its key in another header (x-api-key, x-goog-api-key).
		s := secret.New()
		s.AddURL("the base URL", "http://url-user-0123:url-pass-0123@127.0.0.1:9/")
		basic := base64.StdEncoding.EncodeToString([]byte("url-user-0123:url-pass-0123"))
		source, _, ok := s.FindString("401: bad credentials Basic " + basic)
		Expect(ok).To(BeTrue(), "the base64 form is the user info too")
		Expect(source).To(Equal("the user info of the base URL as Basic credentials"))
		Expect(s.Redact("Basic " + basic)).To(Equal("Basic [REDACTED]"))
	})
})

var _ = Describe("the variables AGENTSNAP_SECRET_VARS names", func() {
	It("are secrets under their names, separated by commas or spaces, as set and trimmed", func() {
		env := map[string]string{secret.NamesVar: " TENANT_TOKEN,MCP_TOKEN\tSHORT_ONE ", "TENANT_TOKEN": "tnt-0123456789\n", "MCP_TOKEN": "mcp-0123456789", "SHORT_ONE": "abc"}
		s := secret.FromEnv(func(k string) string { return env[k] })
		Expect(s.Values()).To(Equal(map[string]string{"TENANT_TOKEN": "tnt-0123456789\n", "TENANT_TOKEN (2)": "tnt-0123456789", "MCP_TOKEN": "mcp-0123456789", "SHORT_ONE": "abc"}))
		Expect(s.Short()).To(Equal([]string{"SHORT_ONE"}))
		Expect(s.Empty()).To(BeEmpty())
	})

	It("name an entry that names no variable that is set by its place: its text a secret (a value given by mistake), its variable empty", func() {
		env := map[string]string{secret.NamesVar: "UNSET_VAR,sk-given-by-mistake-0123"}
		s := secret.FromEnv(func(k string) string { return env[k] })
		Expect(s.Values()).To(Equal(map[string]string{
			"entry 1 of AGENTSNAP_SECRET_VARS":                       "UNSET_VAR",
			"entry 2 of AGENTSNAP_SECRET_VARS":                       "sk-given-by-mistake-0123",
			"the variable named by entry 1 of AGENTSNAP_SECRET_VARS": "",
			"the variable named by entry 2 of AGENTSNAP_SECRET_VARS": "",
		}))
		Expect(s.Empty()).To(Equal([]string{"the variable named by entry 1 of AGENTSNAP_SECRET_VARS", "the variable named by entry 2 of AGENTSNAP_SECRET_VARS"}))
		c := secret.New()
		c.AddAll(s.Values())
		Expect(c.Empty()).To(Equal(s.Empty()), "a set the map is handed to remembers them")
	})

	It("keep the value of an entry written NAME=value by mistake a secret on its own, as the agent sends it without its name", func() {
		env := map[string]string{secret.NamesVar: "TENANT_TOKEN=tnt-live-0123456789"}
		s := secret.FromEnv(func(k string) string { return env[k] })
		Expect(s.Redact("sent tnt-live-0123456789")).To(Equal("sent [REDACTED]"))
		Expect(s.Empty()).To(Equal([]string{"the variable named by entry 1 of AGENTSNAP_SECRET_VARS"}))
	})
})

var _ = Describe("the credentials of a program's environment", func() {
	It("takes the value of each variable whose name says it is a credential, naming it and where, and no other", func() {
		s := secret.New()
		s.AddEnviron("the command of MCP server github", []string{
			"GITHUB_PERSONAL_ACCESS_TOKEN=ghp-0123456789abcdef",
			"DB_PASSWORD= pw-0123456789 ",
			"CONFIG_PATH=/etc/server/config.json",
			"malformed-entry-0123456789",
		})
		source, _, ok := s.FindString("bad credentials: ghp-0123456789abcdef")
		Expect(ok).To(BeTrue())
		Expect(source).To(Equal("the GITHUB_PERSONAL_ACCESS_TOKEN variable of the command of MCP server github"))
		Expect(s.Redact("login pw-0123456789 failed")).To(Equal("login [REDACTED] failed"), "trimmed, as a program may read it")
		Expect(s.Short()).To(BeEmpty())
		Expect(s.Redact("read /etc/server/config.json; malformed-entry-0123456789")).To(Equal("read /etc/server/config.json; malformed-entry-0123456789"))
	})

	It("leaves out what the whole environment holds that only names a credential: where it is kept or what asks for it", func() {
		s := secret.New()
		s.AddEnviron("the command of MCP server github", []string{
			"SSH_AUTH_SOCK=/tmp/ssh-XXXXabcdef/agent.1234",
			"GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass",
			"PIP_KEYRING_PROVIDER=subprocess",
			"GOOGLE_APPLICATION_CREDENTIALS_FILE=/home/me/creds.json",
			"XAUTHORITY_PATH=/run/user/1000/gdm/Xauthority",
			"API_TOKEN=tok-0123456789abcdef",
			"DATABASE_URL=postgres://app:pw-0123456789@db:5432/app",
			"AUTH_SERVER_URL=https://auth.example.com/oauth",
		})
		Expect(s.Redact("connecting as pw-0123456789 to https://auth.example.com/oauth")).
			To(Equal("connecting as [REDACTED] to https://auth.example.com/oauth"), "a URL's password, not the URL")
		Expect(s.Redact("ran git-gui--askpass as a subprocess on /tmp/ssh-XXXXabcdef/agent.1234 with /home/me/creds.json")).
			To(Equal("ran git-gui--askpass as a subprocess on /tmp/ssh-XXXXabcdef/agent.1234 with /home/me/creds.json"))
		Expect(s.Redact("token tok-0123456789abcdef")).To(Equal("token [REDACTED]"), "a credential beside them still is one")
	})
})
