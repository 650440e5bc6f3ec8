package httpguard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// allowHeaders are the request headers the official SDKs send from a
// browser — openai, @anthropic-ai/sdk, @google/genai — plus agentsnap's
// session headers. A preflight also allows any header with one of
// allowPrefixes, which the SDKs extend from release to release.
var allowHeaders = []string{
	"Accept", "Authorization", "Content-Type", "Idempotency-Key",
	"OpenAI-Organization", "OpenAI-Project", "OpenAI-Beta",
	"X-API-Key", "Anthropic-Version", "Anthropic-Beta", "Anthropic-Dangerous-Direct-Browser-Access",
	"X-Goog-API-Key", "X-Goog-API-Client", "X-Goog-User-Project", "X-Server-Timeout",
	"X-Stainless-Arch", "X-Stainless-Lang", "X-Stainless-OS", "X-Stainless-Package-Version",
	"X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Retry-Count", "X-Stainless-Timeout",
	"X-Stainless-Helper", "X-Stainless-Helper-Method",
	"Agentsnap-Session", "Agentsnap-Parent", "Agentsnap-Call", "Agentsnap-Mode",
}

var allowPrefixes = []string{"x-stainless-", "agentsnap-"}

// ParseOrigin checks an origin given to --allow-origin and returns it as
// a browser sends it: scheme://host[:port], lower-case, without the
// scheme's default port.
func ParseOrigin(s string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("httpguard: origin %q %s; give an exact origin scheme://host[:port], such as http://localhost:5173", s, why)
	}
	if s == "*" || s == "null" {
		return bad("would allow any web page")
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Scheme == "" || u.Opaque != "":
		return bad("is not a URL origin")
	case u.Host == "" || u.Hostname() == "":
		return bad("has no host")
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#"):
		return bad("has more than a scheme, host and port")
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return scheme + "://" + host, nil
}

// preflight answers a CORS preflight from an allowed origin (whose
// Access-Control-Allow-Origin is already set): which methods and headers
// the agent's calls may use. A requested header outside the list is left
// out, so the browser names it, and Logf is told.
func (g *Guard) preflight(w http.ResponseWriter, r *http.Request) {
	allow := append([]string(nil), allowHeaders...)
	var unknown []string
	for _, field := range r.Header.Values("Access-Control-Request-Headers") {
		for name := range strings.SplitSeq(field, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" || known(name) {
				continue
			}
			if hasAllowedPrefix(name) && validToken(name) {
				allow = append(allow, name)
				continue
			}
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		g.cfg.Logf("a preflight from %s asks for headers serve does not allow: %s", r.Header.Get("Origin"), strings.Join(unknown, ", "))
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", strings.Join(allow, ", "))
	h.Set("Access-Control-Max-Age", "600")
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		// Chrome asks before a public page may call a loopback address.
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}

func known(name string) bool {
	for _, h := range allowHeaders {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

func hasAllowedPrefix(name string) bool {
	for _, p := range allowPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// validToken reports whether name is an HTTP token (a header name).
func validToken(name string) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return name != ""
}
