package redfish

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"sync"
)

// maxSessions bounds the open sessions; the oldest goes first.
const maxSessions = 64

// sessions are Redfish login sessions (X-Auth-Token), as real BMCs offer
// and sushy and redfishtool prefer to Basic auth.
type sessions struct {
	mu    sync.Mutex
	order []string          // session ids, oldest first
	token map[string]string // id -> token
}

func newToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (ss *sessions) open() (id, token string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.token == nil {
		ss.token = map[string]string{}
	}
	if len(ss.order) >= maxSessions {
		delete(ss.token, ss.order[0])
		ss.order = ss.order[1:]
	}
	id, token = newToken(8), newToken(32)
	ss.token[id] = token
	ss.order = append(ss.order, id)
	return id, token
}

// valid reports whether token belongs to an open session.
func (ss *sessions) valid(token string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ok := 0
	for _, t := range ss.token {
		ok |= subtle.ConstantTimeCompare([]byte(t), []byte(token))
	}
	return token != "" && ok == 1
}

func (ss *sessions) close(id string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if _, ok := ss.token[id]; !ok {
		return false
	}
	delete(ss.token, id)
	for i, o := range ss.order {
		if o == id {
			ss.order = append(ss.order[:i], ss.order[i+1:]...)
			break
		}
	}
	return true
}

func (ss *sessions) ids() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]string(nil), ss.order...)
}

const sessionsPath = "/redfish/v1/SessionService/Sessions"

func sessionDoc(id, user string) doc {
	return doc{
		"@odata.type": "#Session.v1_3_0.Session", "@odata.id": sessionsPath + "/" + id,
		"Id": id, "Name": "User Session", "UserName": user,
	}
}

// postSession logs in: {"UserName","Password"} gives 201 with X-Auth-Token.
func (s *Service) postSession(w http.ResponseWriter, r *http.Request) {
	var body struct {
		UserName string `json:"UserName"`
		Password string `json:"Password"`
	}
	if err := readBody(r, &body); err != nil {
		s.fail(w, err)
		return
	}
	u := subtle.ConstantTimeCompare([]byte(body.UserName), []byte(s.cfg.Username))
	p := subtle.ConstantTimeCompare([]byte(body.Password), []byte(s.cfg.Password))
	if u&p != 1 {
		writeError(w, http.StatusUnauthorized, "Base.1.0.NoValidSession", "wrong user name or password")
		return
	}
	id, token := s.sessions.open()
	w.Header().Set("X-Auth-Token", token)
	w.Header().Set("Location", sessionsPath+"/"+id)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	writeBody(w, sessionDoc(id, body.UserName))
}

func (s *Service) deleteSession(w http.ResponseWriter, r *http.Request) {
	if !s.sessions.close(r.PathValue("sid")) {
		writeError(w, http.StatusNotFound, "Base.1.0.ResourceMissingAtURI", "no such session")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) sessionRoutes(m *http.ServeMux) {
	m.HandleFunc("POST "+sessionsPath, s.postSession)
	m.HandleFunc("DELETE "+sessionsPath+"/{sid}", s.deleteSession)
	m.HandleFunc("GET /redfish/v1/SessionService", s.get(func(*http.Request) (any, error) {
		return doc{
			"@odata.type": "#SessionService.v1_1_8.SessionService", "@odata.id": "/redfish/v1/SessionService",
			"Id": "SessionService", "Name": "Session Service", "ServiceEnabled": true, "SessionTimeout": 3600,
			"Sessions": ref(sessionsPath),
		}, nil
	}))
	m.HandleFunc("GET "+sessionsPath, s.get(func(*http.Request) (any, error) {
		members := []doc{}
		for _, id := range s.sessions.ids() {
			members = append(members, ref(sessionsPath+"/"+id))
		}
		return doc{
			"@odata.type": "#SessionCollection.SessionCollection", "@odata.id": sessionsPath,
			"Name": "Session Collection", "Members": members, "Members@odata.count": len(members),
		}, nil
	}))
	m.HandleFunc("GET "+sessionsPath+"/{sid}", s.get(func(r *http.Request) (any, error) {
		for _, id := range s.sessions.ids() {
			if id == r.PathValue("sid") {
				return sessionDoc(id, s.cfg.Username), nil
			}
		}
		return nil, ErrNotFound
	}))
}
