package secret

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// memberNames are the JSON member names, lower-case without _ - or ., that
// hold a credential by themselves; memberSuffixes end the names of more
// (api_key, x-goog-api-key, client_secret, access_token, the
// authorization_token of Anthropic's MCP connector). A name that
// only ends in key or tokens is not one: prompt_cache_key, max_tokens.
var (
	memberNames    = []string{"key", "token", "auth", "secret", "password", "passwd", "cookie", "credential", "credentials"}
	memberSuffixes = []string{"apikey", "secret", "secretkey", "privatekey", "password", "accesstoken", "authtoken", "bearertoken",
		"sessiontoken", "refreshtoken", "idtoken", "authorization", "authorizationtoken", "credential", "credentials"}
)

// IsCredentialMember reports whether a JSON member named name holds a
// credential when its value is a string: api_key, apiKey, x-api-key,
// token, client_secret, an Authorization, ...
func IsCredentialMember(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "", ".", "").Replace(name))
	if slices.Contains(memberNames, n) {
		return true
	}
	for _, suffix := range memberSuffixes {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// AddMembers adds the string value of every member of the JSON text raw,
// at any depth, whose name says it holds a credential
// (IsCredentialMember), trimmed, named "the NAME member of " + where, and
// of an Authorization member the credentials after its scheme too. A
// model request's settings are recorded as sent, so a key an agent puts
// in its body (an api_key member, extra headers) is a secret of the
// recording. Text that is not JSON adds nothing.
func (s *Set) AddMembers(raw []byte, where string) {
	if s == nil || len(raw) == 0 || !mayHoldCredential(raw) {
		return
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	s.addMembers(v, where)
}

func (s *Set) addMembers(v any, where string) {
	switch v := v.(type) {
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(v)) {
			str, ok := v[name].(string)
			if !ok {
				s.addMembers(v[name], where)
				continue
			}
			if !IsCredentialMember(name) {
				continue
			}
			source := "the " + name + " member of " + where
			str = strings.TrimSpace(str)
			s.Add(source, str)
			if _, cred, ok := strings.Cut(str, " "); ok && strings.HasSuffix(strings.ToLower(name), "authorization") {
				s.Add("the credentials in "+source, strings.TrimSpace(cred)) // after Bearer
			}
		}
	case []any:
		for _, e := range v {
			s.addMembers(e, where)
		}
	}
}

// credentialWords: every name IsCredentialMember takes holds one of
// them, case aside ("token" at its end, before the closing quote).
var credentialWords = [][]byte{[]byte("key"), []byte(`token"`), []byte("auth"), []byte("secret"), []byte("pass"), []byte("cookie"), []byte("credential")}

// mayHoldCredential is a quick test, without allocating, that spares
// decoding settings that name no credential (temperature, max_tokens).
func mayHoldCredential(raw []byte) bool {
	for i := range raw {
		for _, w := range credentialWords {
			if len(raw)-i >= len(w) && bytes.EqualFold(raw[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}
