package fakesvc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/rackboot/rackboot/engine/models"
)

// Request is one request the service received.
type Request struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
}

// Service is the fake. Fill its queues (Push, SetRegisterStatus,
// SetStepsStatus) before or during a test; each answer is taken from the
// front of its queue.
type Service struct {
	InfraEnvID string
	Token      string

	mu             sync.Mutex
	registerStatus []int          // statuses answered to registrations before 201
	steps          []models.Steps // instruction answers; when empty, no steps and a 60 s wait
	stepsStatus    []int          // statuses answered to polls before the steps queue
	noRunner       bool           // register without a next_step_runner_command
	requests       []Request
	replies        []models.StepReply
	// Changed is signalled (without blocking) after every request.
	Changed chan struct{}
}

// New returns a fake for one infra-env and token.
func New(infraEnvID, token string) *Service {
	return &Service{InfraEnvID: infraEnvID, Token: token, Changed: make(chan struct{}, 1)}
}

// Handler returns the HTTP handler.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	base := "/api/assisted-install/v2/infra-envs/{infra_env_id}/hosts"
	mux.HandleFunc("POST "+base, s.register)
	mux.HandleFunc("GET "+base+"/{host_id}/instructions", s.instructions)
	mux.HandleFunc("POST "+base+"/{host_id}/instructions", s.reply)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.requests = append(s.requests, Request{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
		s.mu.Unlock()
		defer s.notify()
		if r.Header.Get("X-Secret-Key") != s.Token {
			// A careless service might echo the key; the agent must not log it.
			fail(w, http.StatusUnauthorized, "bad X-Secret-Key "+r.Header.Get("X-Secret-Key"))
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Service) notify() {
	select {
	case s.Changed <- struct{}{}:
	default:
	}
}

func fail(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": fmt.Sprint(code), "kind": "Error", "reason": reason})
}

func (s *Service) pop(q *[]int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(*q) == 0 {
		return 0
	}
	code := (*q)[0]
	*q = (*q)[1:]
	return code
}

func (s *Service) infraOK(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("infra_env_id") != s.InfraEnvID {
		fail(w, http.StatusNotFound, "no such infra-env")
		return false
	}
	return true
}

func (s *Service) register(w http.ResponseWriter, r *http.Request) {
	if !s.infraOK(w, r) {
		return
	}
	if code := s.pop(&s.registerStatus); code != 0 {
		fail(w, code, "queued failure")
		return
	}
	var p models.HostCreateParams
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || p.HostID == "" {
		fail(w, http.StatusBadRequest, "bad registration body")
		return
	}
	resp := models.HostRegistrationResponse{Host: models.Host{
		ID: p.HostID, InfraEnvID: s.InfraEnvID, Kind: models.HostKindHost, Status: models.HostStatusDiscoveringUnbound,
		Href: r.URL.Path + "/" + p.HostID, DiscoveryAgentVersion: p.DiscoveryAgentVersion,
	}}
	s.mu.Lock()
	noRunner := s.noRunner
	s.mu.Unlock()
	if !noRunner {
		arg, _ := json.Marshal(models.NextStepCmdRequest{AgentVersion: p.DiscoveryAgentVersion, HostID: p.HostID, InfraEnvID: s.InfraEnvID})
		resp.NextStepRunnerCommand = &models.NextStepRunnerCommand{Command: "", Args: []string{string(arg)}, RetrySeconds: 0}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(resp)
}

func (s *Service) instructions(w http.ResponseWriter, r *http.Request) {
	if !s.infraOK(w, r) {
		return
	}
	if code := s.pop(&s.stepsStatus); code != 0 {
		fail(w, code, "queued failure")
		return
	}
	s.mu.Lock()
	steps := models.Steps{Instructions: []*models.Step{}, NextInstructionSeconds: 60, PostStepAction: models.PostStepActionContinue}
	if len(s.steps) > 0 {
		steps, s.steps = s.steps[0], s.steps[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(steps)
}

func (s *Service) reply(w http.ResponseWriter, r *http.Request) {
	if !s.infraOK(w, r) {
		return
	}
	var rep models.StepReply
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil || rep.StepID == "" {
		fail(w, http.StatusBadRequest, "bad step reply")
		return
	}
	s.mu.Lock()
	s.replies = append(s.replies, rep)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Requests returns a copy of the requests received so far.
func (s *Service) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Replies returns a copy of the step replies received so far.
func (s *Service) Replies() []models.StepReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]models.StepReply(nil), s.replies...)
}

// Push appends instruction answers to the queue.
func (s *Service) Push(steps ...models.Steps) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// SetRegisterStatus queues registration failures.
func (s *Service) SetRegisterStatus(codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.registerStatus = append(s.registerStatus, codes...)
}

// SetStepsStatus queues poll failures.
func (s *Service) SetStepsStatus(codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stepsStatus = append(s.stepsStatus, codes...)
}

// SetNoRunner makes registrations answer without a runner command.
func (s *Service) SetNoRunner(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noRunner = v
}
