package persistence

import (
	"context"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Namespace returns a view of store that keeps its sessions apart from
// everyone else's: every id it writes is prefix + id (parentSession too),
// and it lists and loads only ids with that prefix, handing them back
// without it. Several scenarios' replays can so share one database or one
// folder although each names its root "root". Closing the view does not
// close store; the caller closes store when every view is done.
func Namespace(store Store, prefix string) Store {
	return &namespaced{inner: store, prefix: prefix}
}

type namespaced struct {
	inner  Store
	prefix string
}

func (n *namespaced) in(h session.Header) session.Header {
	h.ID = n.prefix + h.ID
	if h.ParentSession != "" {
		h.ParentSession = n.prefix + h.ParentSession
	}
	return h
}

func (n *namespaced) out(h session.Header) session.Header {
	h.ID = strings.TrimPrefix(h.ID, n.prefix)
	h.ParentSession = strings.TrimPrefix(h.ParentSession, n.prefix)
	return h
}

func (n *namespaced) Create(ctx context.Context, h session.Header, seed []session.Event) error {
	return n.inner.Create(ctx, n.in(h), seed)
}

func (n *namespaced) Append(ctx context.Context, id string, events []session.Event) error {
	return n.inner.Append(ctx, n.prefix+id, events)
}

func (n *namespaced) Load(ctx context.Context, id string) (*session.Log, error) {
	l, err := n.inner.Load(ctx, n.prefix+id)
	if err != nil {
		return nil, err
	}
	l.Header = n.out(l.Header)
	return l, nil
}

func (n *namespaced) List(ctx context.Context) ([]session.Header, error) {
	all, err := n.inner.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []session.Header
	for _, h := range all {
		if strings.HasPrefix(h.ID, n.prefix) {
			out = append(out, n.out(h))
		}
	}
	return out, nil
}

// Close does nothing: the view does not own the store.
func (n *namespaced) Close() error { return nil }
