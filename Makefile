# lockstep: the two commands of the README's Quick start, and a few more.
# Both first make sure a ZooKeeper is reachable (scripts/ensure-zookeeper).

GO      ?= go
TESTFLAGS ?= -timeout 20m

.PHONY: demo test test-stock test-docker zookeeper vet check exercise check-exercises workshop class

## demo: the course's showcase: the visualizer on chapter 04
demo: zookeeper
	$(GO) run ./visualizer

## test: every chapter's tests against a real ZooKeeper
test: zookeeper
	$(GO) test $(TESTFLAGS) ./...

## test-stock: the tests against ZooKeeper as installed (Debian's stock zoo.cfg), standalone then a 3-server ensemble
test-stock:
	./scripts/stock-zookeeper $(STOCK)

## test-docker: the Docker path on a real engine (started if none answers; the stand-in image from Debian's packages): the 04 demo, 04's suite, the ensemble tests, then nothing left behind
test-docker:
	./scripts/test-docker

## zookeeper: ZK_SERVERS, Docker, or a local install — installing one if needed
zookeeper:
	@./scripts/ensure-zookeeper

## check: formatting and vet, as CI runs them, and that a broken exercise breaks nothing else
check:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	@./scripts/check-exercise-isolation

## workshop: the workshop runner: every exercise's state, re-run on save, hints, reset, the visualizer and replays
workshop: zookeeper
	$(GO) run ./workshop

## exercise: a chapter's check on your NN-name/<pkg>/*_workshop.go (make exercise CH=04; FROM=dir for a scratch copy), the reference (SOLUTION=1), the visualizer on it (VISUAL=1), the next hint (HINT=1)
exercise: zookeeper
	@./scripts/exercise $(CH) $(if $(filter 1,$(SOLUTION)),SOLUTION=1) $(if $(filter 1,$(VISUAL)),VISUAL=1) $(if $(filter 1,$(HINT)),HINT=1) $(if $(FROM),--from $(FROM))

## check-exercises: every reference passes its conformance suite, every untouched skeleton stops at a TODO(workshop)
check-exercises: zookeeper
	./scripts/exercise --check-all

## class: host a workshop (docs/classroom.md): a 3-server ZooKeeper on this machine for the room, its data kept in DIR (default lockstep-class), bound on ADDR (the room's IP; default 127.0.0.1), and the line learners paste
class:
	@./scripts/ensure-zookeeper
	$(GO) run ./workshop/class serve $(if $(ADDR),-addr $(ADDR)) $(if $(DIR),-dir $(DIR))
