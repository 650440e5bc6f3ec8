package secret

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// KeyVars are the environment variables that hold API keys: the ones the
// OpenAI-compatible driver reads a key from, and those of the other model
// APIs agents use. Every one set is a secret, whichever is sent.
var KeyVars = []string{
	"AGENTSNAP_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY",
	"ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
}

// URLVars are the environment variables that hold a base URL, whose query
// and user info may carry credentials.
var URLVars = []string{"AGENTSNAP_BASE_URL"}

// CredentialHeaders are the request headers model APIs take credentials
// in. [IsCredentialHeader] also takes other names that say they carry one.
var CredentialHeaders = []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"}

// NamesVar is the environment variable that names more variables whose
// values are secrets — what no key variable holds and agentsnap cannot see
// sent: a token an agent's own HTTP client adds in a header of its own, one
// in the URL of an MCP transport mcpsnap does not unwrap. It holds their
// names, separated by commas or spaces, never their values.
const NamesVar = "AGENTSNAP_SECRET_VARS"

// AddEnv adds the value of every key variable that is set (trimmed, as a
// key is sent), the credentials of every base URL variable, and the value
// of every variable NamesVar names. An entry of NamesVar that names no
// variable that is set is remembered in Empty, named by its place, not its
// text — which may be a value given by mistake, so that text is a secret
// too, and of NAME=value the value alone.
func (s *Set) AddEnv(getenv func(string) string) {
	for _, v := range KeyVars {
		s.Add(v, strings.TrimSpace(getenv(v)))
	}
	for _, v := range URLVars {
		s.AddURL(v, strings.TrimSpace(getenv(v)))
	}
	names := strings.FieldsFunc(getenv(NamesVar), func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	for i, name := range names {
		if v := getenv(name); strings.TrimSpace(v) != "" {
			s.Add(name, v)
			s.Add(name, strings.TrimSpace(v)) // as a header sends it
			continue
		}
		entry := fmt.Sprintf("entry %d of %s", i+1, NamesVar)
		if len(name) >= MinLen {
			s.Add(entry, name)
		}
		if _, value, ok := strings.Cut(name, "="); ok {
			// NAME=value, as a shell assigns it: the value alone, sent
			// without its name, is the secret.
			s.Add(entry, value)
		}
		s.AddAll(map[string]string{"the variable named by " + entry: ""})
	}
}

// FromEnv returns the set AddEnv gathers.
func FromEnv(getenv func(string) string) *Set {
	s := New()
	s.AddEnv(getenv)
	return s
}

// AddURL adds the credentials the URL raw carries, naming each after where
// (such as "AGENTSNAP_BASE_URL" or "the base URL"): every query parameter
// value whose name says it is a credential (key, api_key, token, sig,
// ...) or that looks like one (16 bytes or more of letters and digits), and
// every query part without a name, as decoded and as written in raw; and
// the user name and password of its user info, also as the Basic
// credentials an HTTP client sends them in. A URL that does not parse
// adds nothing.
func (s *Set) AddURL(where, raw string) {
	if s == nil || raw == "" {
		return
	}
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	for pair := range strings.SplitSeq(u.RawQuery, "&") {
		name, escaped, ok := strings.Cut(pair, "=")
		if !ok { // a bare part, such as ?AIzaSy...: a token by itself
			name, escaped = "", pair
		}
		n, err1 := url.QueryUnescape(name)
		v, err2 := url.QueryUnescape(escaped)
		if err1 != nil || err2 != nil {
			n, v = name, escaped
		}
		switch {
		case !ok:
			s.addWritten("the query of "+where, v, escaped)
		case credentialParam(n, v):
			s.addWritten("the "+n+"= query parameter of "+where, v, escaped)
		}
	}
	if u.User != nil {
		name := u.User.Username()
		pass, ok := u.User.Password()
		if ok {
			s.Add("the user info of "+where, name+":"+pass)
			s.Add("the password in the user info of "+where, pass)
		}
		s.Add("the user name in the user info of "+where, name)
		// Go's client sends the user info as Basic credentials when no
		// Authorization header is set (an x-api-key or a key= API), and a
		// server may echo that header.
		s.Add("the user info of "+where+" as Basic credentials", base64.StdEncoding.EncodeToString([]byte(name+":"+pass)))
	}
}

// addWritten adds value, and the text a URL wrote it as when that is none
// of value's own encodings (escaped by hand: %7e, %2b) as a value of its
// own, so that every copy of the set (Values, Merge) carries it: a server
// may echo the query as it was sent.
func (s *Set) addWritten(source, value, written string) {
	s.Add(source, value)
	if len(value) >= MinLen && !slices.Contains(encodings(value), written) {
		s.Add(source+" as the URL writes it", written)
	}
}

// credentialParam tells the query parameters treated as credentials: by
// name, or by a value that looks random. A version or a model name is
// never one (Azure's api-version=2024-10-21 is not a key).
func credentialParam(name, value string) bool {
	n := strings.ToLower(name)
	if strings.Contains(n, "version") || strings.Contains(n, "model") {
		return false
	}
	for _, word := range []string{"key", "token", "secret", "sig", "auth", "pass", "credential", "session"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return looksRandom(value)
}

// looksRandom reports whether v looks like a token: 16 bytes or more, only
// the characters tokens use, letters and digits both.
func looksRandom(v string) bool {
	if len(v) < 16 {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			letter = true
		case '0' <= c && c <= '9':
			digit = true
		case strings.IndexByte("-_.~+/=", c) < 0:
			return false
		}
	}
	return letter && digit
}

// IsCredentialHeader reports whether a request header named name carries a
// credential: one of CredentialHeaders, or a name with key, token, secret,
// auth, password or cookie in it.
func IsCredentialHeader(name string) bool {
	canon := http.CanonicalHeaderKey(name)
	if slices.Contains(CredentialHeaders, canon) {
		return true
	}
	n := strings.ToLower(name)
	for _, word := range []string{"key", "token", "secret", "auth", "password", "cookie"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// AddHeader adds the value of every credential header of h. For an
// Authorization or Proxy-Authorization header it adds the whole value, the
// credentials after the scheme ("Bearer ", "Basic ", ...) and, for Basic,
// the decoded user:password, the password and the user name; for Cookie,
// the whole value and each cookie's value.
func (s *Set) AddHeader(h http.Header) {
	if s == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(h)) {
		if !IsCredentialHeader(name) {
			continue
		}
		for _, v := range h[name] {
			s.addHeaderValue(name, strings.TrimSpace(v), "")
		}
	}
}

// addHeaderValue adds the credentials in header name's value v; of, when
// set, says whose header it is (" of the agent's request").
func (s *Set) addHeaderValue(name, v, of string) {
	canon := http.CanonicalHeaderKey(name)
	if canon == "Cookie" {
		s.Add("the cookie header"+of, v)
		// A server reads each cookie's value alone, and so may echo it.
		if cookies, err := http.ParseCookie(v); err == nil {
			for _, c := range cookies {
				s.Add("the "+c.Name+" cookie"+of, c.Value)
			}
		}
		return
	}
	if canon != "Authorization" && canon != "Proxy-Authorization" {
		s.Add("the "+strings.ToLower(name)+" header"+of, v)
		return
	}
	header := "the " + canon + " header" + of
	s.Add(header, v)
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok {
		return
	}
	cred = strings.TrimSpace(cred)
	what := " credentials in "
	if strings.EqualFold(scheme, "bearer") {
		what = " token in "
	}
	s.Add("the "+strings.ToLower(scheme)+what+header, cred)
	if !strings.EqualFold(scheme, "basic") {
		return
	}
	if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
		s.Add("the decoded basic credentials in "+header, string(dec))
		if user, pass, ok := strings.Cut(string(dec), ":"); ok {
			s.Add("the basic password in "+header, pass)
			// A key given as the URL's user (https://KEY@host) is the
			// user name, with no password: as AddURL takes it.
			s.Add("the basic user name in "+header, user)
		}
	}
}

// AddEnviron adds the value of every NAME=value entry of environ (the
// environment a program is started with, as exec.Cmd.Env holds it) whose
// name says it carries a credential: key, token, secret, auth, pass or
// credential in it, as GITHUB_PERSONAL_ACCESS_TOKEN or DB_PASSWORD, unless
// it names where one is kept (see credentialVar) — and the credentials of
// every *_URL or *_URI entry's URL (AddURL). The program is given them to
// use, and may echo them. Each is named "the NAME variable of " + where.
func (s *Set) AddEnviron(where string, environ []string) {
	if s == nil {
		return
	}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if n := strings.ToLower(name); strings.HasSuffix(n, "url") || strings.HasSuffix(n, "uri") {
			// A URL's credentials are its user info and query (a
			// DATABASE_URL's password), whatever its name.
			s.AddURL("the "+name+" variable of "+where, strings.TrimSpace(value))
			continue
		}
		if !credentialVar(name) {
			continue
		}
		// Trimmed: the value as written holds it, and blanks around a
		// short one do not make it a secret.
		s.Add("the "+name+" variable of "+where, strings.TrimSpace(value))
	}
}

// credentialVar tells the environment variables treated as credentials,
// by name. A program is usually started with the whole environment
// (append(os.Environ(), ...)), so names that only mention a credential are
// not ones: where one is kept or how it is asked for (SSH_AUTH_SOCK,
// GIT_ASKPASS, PIP_KEYRING_PROVIDER, a *_FILE or *_PATH) hold paths and
// program names, which would make ordinary words of a log secrets.
func credentialVar(name string) bool {
	n := strings.ToLower(name)
	words := strings.FieldsFunc(n, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(words) == 0 {
		return false
	}
	if slices.Contains(notCredentialWords, words[len(words)-1]) || slices.Contains(words, "askpass") {
		return false
	}
	for _, word := range []string{"key", "token", "secret", "auth", "pass", "credential"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// notCredentialWords end the names of variables that say where a
// credential is or what asks for it, not what it is.
var notCredentialWords = []string{"sock", "socket", "file", "path", "dir", "provider", "helper", "program", "command", "cmd", "url", "host", "port", "type", "mode"}

// AddRequest adds the credentials an HTTP request carries: its credential
// headers and its URL's, named after where ("the agent's request"). The
// wire layer gathers an incoming request's this way: an agent's own key,
// even a dummy one, is kept out of fixtures like the recording's (a dummy
// shorter than MinLen, such as "unused", is not a secret).
func (s *Set) AddRequest(r *http.Request, where string) {
	if s == nil || r == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		if IsCredentialHeader(name) {
			for _, v := range r.Header[name] {
				s.addHeaderValue(name, strings.TrimSpace(v), " of "+where)
			}
		}
	}
	if r.URL != nil {
		s.AddURL(where, r.URL.String())
	}
}

type ctxKey struct{}

// NewContext returns ctx carrying s, so code that sends credentials (a live
// driver, the wire layer) adds them to the set of the recording it runs
// in.
func NewContext(ctx context.Context, s *Set) context.Context {
	return context.WithValue(ctx, ctxKey{}, s)
}

// FromContext returns the set ctx carries, or nil (an empty set: adding to
// it does nothing).
func FromContext(ctx context.Context) *Set {
	s, _ := ctx.Value(ctxKey{}).(*Set)
	return s
}
