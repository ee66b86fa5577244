package tests

import "strings"

// The argument shapes of each qless API function (see api.lua), as the
// random generator builds them.

func (g *callGen) put(c *genCall) {
	c.add(0, g.pick(genWorkers...), g.pick(genQueues...))
	c.add('j', g.jid())
	c.add(0, g.pick(genClasses...))
	c.add('J', g.data())
	c.add('n', g.delay())
	c.optNames = []string{"priority", "tags", "retries", "depends"}
	// Each option in percent of puts, in random order; depends is rare
	// because jobs left waiting on others pile up and stall the run.
	for _, i := range g.rng.Perm(4) {
		if g.rng.Intn(100) >= []int{30, 30, 25, 10}[i] {
			continue
		}
		switch c.optNames[i] {
		case "priority":
			c.opt("priority", 'n', g.priorityValue())
		case "tags":
			c.opt("tags", 'J', g.tagsJSON())
		case "retries":
			c.opt("retries", 'n', g.pick("0", "1", "2", "3", "5"))
		case "depends":
			c.opt("depends", 'J', g.jidsJSON())
		}
	}
}

func (g *callGen) pop(c *genCall) {
	c.add(0, g.pick(genQueues...), g.pick(genWorkers...))
	c.add('n', g.pick("1", "1", "2", "3", "5", "2.5"))
}

func (g *callGen) peek(c *genCall) {
	c.add(0, g.pick(genQueues...))
	c.add('n', g.pick("1", "2", "3", "5"))
}

func (g *callGen) heartbeat(c *genCall) {
	jid, worker, _ := g.heldJob()
	c.add('j', jid)
	c.add(0, worker)
	if g.chance(3) {
		c.add('J', g.data())
	}
}

func (g *callGen) complete(c *genCall) {
	jid, worker, queue := g.heldJob()
	c.add('j', jid)
	c.add(0, worker, queue)
	c.add('J', g.data())
	c.optNames = []string{"next", "delay", "depends"}
	next := g.chance(3)
	if next {
		c.opt("next", 0, g.pick(genQueues...))
	}
	// Without "next", delay and depends are errors; try them now and then.
	if (next && g.chance(2)) || g.chance(30) {
		c.opt("delay", 'n', g.delay())
	}
	if (next && g.chance(5)) || g.chance(30) {
		c.opt("depends", 'J', g.jidsJSON())
	}
}

func (g *callGen) fail(c *genCall) {
	jid, worker, _ := g.heldJob()
	c.add('j', jid)
	c.add(0, worker, g.pick(genGroups...), g.pick(genMessages...))
	if g.chance(2) {
		c.add('J', g.data())
	}
}

func (g *callGen) retry(c *genCall) {
	jid, worker, queue := g.heldJob()
	c.add('j', jid)
	c.add(0, queue, worker)
	if g.chance(2) {
		c.add('n', g.pick("0", "2.5", "5", "30"))
		if g.chance(2) {
			c.add(0, g.pick(genGroups...), g.pick(genMessages...))
		}
	}
}

func (g *callGen) depends(c *genCall) {
	c.add('j', g.jid())
	if g.chance(2) {
		c.add('s', "on")
		c.add('j', g.jid())
	} else {
		c.add('s', "off")
		if g.chance(4) {
			c.add(0, "all")
			return
		}
		c.add('j', g.jid())
	}
	if g.chance(3) {
		c.add('j', g.jid())
	}
}

func (g *callGen) tag(c *genCall) {
	switch g.rng.Intn(4) {
	case 0, 1:
		c.add('s', g.pick("add", "remove"))
		c.add('j', g.jid())
		c.add(0, g.tags(1+g.rng.Intn(2))...)
	case 2:
		c.add('s', "get")
		c.add(0, g.pick(genTags...))
		g.window(c)
	default:
		c.add('s', "top")
		g.window(c)
	}
}

// window appends an optional offset and count.
func (g *callGen) window(c *genCall) {
	if g.chance(2) {
		c.add('n', g.pick("0", "1", "2"), g.pick("1", "2", "10", "25"))
	}
}

func (g *callGen) track(c *genCall) {
	switch g.rng.Intn(10) {
	case 0, 1, 2:
	case 3, 4:
		c.add('s', "untrack")
		c.add('j', g.jid())
	default:
		c.add('s', "track")
		c.add('j', g.jid())
	}
}

func (g *callGen) jobs(c *genCall) {
	state := g.pick("complete", "running", "stalled", "scheduled", "depends", "recurring")
	c.add('s', state)
	if state != "complete" {
		c.add(0, g.pick(genQueues...))
	}
	g.window(c)
}

func (g *callGen) configKey() string {
	q := g.pick(genQueues...)
	return g.pick("heartbeat", "grace-period", "max-job-history", "jobs-history", "jobs-history-count",
		"max-worker-age", q+"-max-concurrency", q+"-heartbeat", "application")
}

func (g *callGen) configSet(c *genCall) {
	key := g.configKey()
	var v string
	switch {
	case key == "heartbeat":
		v = g.pick("5", "10", "30", "60", "120", "7.5")
	case key == "grace-period":
		v = g.pick("0", "5", "10", "15")
	case key == "max-job-history":
		v = g.pick("0", "1", "2", "3", "5", "10")
	case key == "jobs-history":
		v = g.pick("30", "120", "600", "3600")
	case key == "jobs-history-count":
		v = g.pick("1", "2", "3", "5", "10")
	case key == "max-worker-age":
		v = g.pick("60", "600", "3600")
	case strings.HasSuffix(key, "-max-concurrency"):
		v = g.pick("0", "1", "2", "3")
	case strings.HasSuffix(key, "-heartbeat"):
		v = g.pick("5", "15", "30")
	default:
		v = "myapp"
	}
	c.add(0, key, v)
}

func (g *callGen) configGet(c *genCall) {
	if g.chance(2) {
		c.add(0, g.configKey())
	}
}

func (g *callGen) configUnset(c *genCall) { c.add(0, g.configKey()) }

func (g *callGen) recur(c *genCall) {
	c.add(0, g.pick(genQueues...), g.pick(genRecurs...), g.pick(genClasses...))
	c.add('J', g.data())
	c.add('s', "interval")
	c.add('n', g.pick("7.5", "10", "30", "60", "120"), g.pick("0", "5", "30"))
	c.optNames = []string{"priority", "tags", "retries", "backlog"}
	for _, i := range g.rng.Perm(4)[:g.rng.Intn(4)] {
		switch c.optNames[i] {
		case "tags":
			c.opt("tags", 'J', g.tagsJSON())
		case "priority":
			c.opt("priority", 'n', g.priorityValue())
		default:
			c.opt(c.optNames[i], 'n', g.pick("0", "1", "2", "5"))
		}
	}
}

func (g *callGen) recurUpdate(c *genCall) {
	c.add(0, g.pick(genRecurs...))
	c.optNames = []string{"priority", "interval", "retries", "data", "klass", "queue", "backlog"}
	for _, i := range g.rng.Perm(7)[:1+g.rng.Intn(2)] {
		switch name := c.optNames[i]; name {
		case "data":
			c.opt(name, 'J', g.data())
		case "klass":
			c.opt(name, 0, g.pick(genClasses...))
		case "queue":
			c.opt(name, 0, g.pick(genQueues...))
		case "interval":
			c.opt(name, 'n', g.pick("10", "30", "90"))
		default:
			c.opt(name, 'n', g.pick("0", "1", "2", "5"))
		}
	}
}

func (g *callGen) recurTag(c *genCall) {
	c.add(0, g.pick(genRecurs...))
	c.add(0, g.tags(1+g.rng.Intn(2))...)
}

func (g *callGen) oneRecur(c *genCall)    { c.add(0, g.pick(genRecurs...)) }
func (g *callGen) oneJid(c *genCall)      { c.add('j', g.jid()) }
func (g *callGen) oneQueue(c *genCall)    { c.add(0, g.pick(genQueues...)) }
func (g *callGen) maybeQueue(c *genCall)  { g.maybe(c, genQueues) }
func (g *callGen) maybeWorker(c *genCall) { g.maybe(c, genWorkers) }

func (g *callGen) maybe(c *genCall, pool []string) {
	if g.chance(2) {
		c.add(0, g.pick(pool...))
	}
}

func (g *callGen) jids(c *genCall) {
	for n := 1 + g.rng.Intn(3); n > 0; n-- {
		c.add('j', g.jid())
	}
}

func (g *callGen) timeout(c *genCall) {
	jid, _, _ := g.heldJob()
	c.add('j', jid)
	if g.chance(4) {
		c.add('j', g.jid())
	}
}

func (g *callGen) queues(c *genCall) {
	for _, i := range g.rng.Perm(3)[:1+g.rng.Intn(2)] {
		c.add(0, genQueues[i])
	}
}

func (g *callGen) workers(c *genCall) {
	for _, i := range g.rng.Perm(4)[:1+g.rng.Intn(2)] {
		c.add(0, genWorkers[i])
	}
}

func (g *callGen) failed(c *genCall) {
	if g.chance(3) {
		return
	}
	q := g.pick(genQueues...)
	c.add(0, g.pick(append([]string{"failed-retries-" + q}, genGroups...)...))
	if g.chance(2) {
		c.add('n', g.pick("0", "1"), g.pick("1", "2", "25"))
	}
}

func (g *callGen) priorityCall(c *genCall) {
	c.add('j', g.jid())
	c.add('n', g.priorityValue())
}

func (g *callGen) log(c *genCall) {
	c.add('j', g.jid())
	c.add(0, g.pick("checkpoint", "note: ok", "retrying"))
	if g.chance(2) {
		c.add('J', g.data())
	}
}

func (g *callGen) stats(c *genCall) {
	c.add(0, g.pick(genQueues...))
	us := g.us - g.rng.Int63n(3*86400e6)
	c.add('n', g.stamp(&us))
}

func (g *callGen) unfail(c *genCall) {
	q := g.pick(genQueues...)
	c.add(0, q, g.pick(append([]string{"failed-retries-" + q}, genGroups...)...))
	if g.chance(2) {
		c.add('n', g.pick("1", "2", "5", "25"))
	}
}
