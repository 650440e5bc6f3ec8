package live

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is how many redirects within one origin a request follows,
// as net/http's default client does.
const maxRedirects = 10

// RedirectError is a redirect a [SameOriginClient] refused: one to
// another origin (scheme, host and port) than the request's first URL.
// It names the two origins only: a path or query may carry a token.
type RedirectError struct {
	Status   int    // the status of the answer that redirected
	From, To string // scheme://host[:port] of the first request and of the redirect
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s answered %d with a redirect to %s, another origin; agentsnap follows redirects only within the origin it was given, "+
		"so that the key and the request go nowhere else: if %s is the endpoint, name it instead", e.From, e.Status, e.To, e.To)
}

// SameOriginClient returns a copy of c (http.DefaultClient when nil) that
// follows a redirect only to the origin of the request's first URL, at
// most 10, and otherwise fails with a *[RedirectError] (wrapped in a
// *url.Error) before a byte goes there. net/http would follow a redirect
// to any host, sending the request's body again (307, 308) and its
// headers: it drops Authorization and Cookie for another domain, but not
// x-api-key or x-goog-api-key, nor either from https to http on the same
// host, and its Referer carries the first URL's query (an api-key=). c's
// own CheckRedirect, if any, is asked after.
func SameOriginClient(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	out := *c
	next := c.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		from, to := origin(via[0].URL), origin(req.URL)
		if from != to {
			status := 0
			if req.Response != nil {
				status = req.Response.StatusCode
			}
			return &RedirectError{Status: status, From: from, To: to}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &out
}

// origin is u's scheme://host:port, the port made explicit so that
// http://h and http://h:80 are one origin.
func origin(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
