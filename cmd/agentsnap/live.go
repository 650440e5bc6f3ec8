package main

import "net/url"

// redactURL shows where a URL points without its query, fragment or user
// info, which may hold tokens.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(the given base URL)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}
