"""One job's life through qless-py over TLS: put, pop, complete.

Run by tls-bindings.sh: python3 tls_bindings.py PORT CERTDIR JID, with
qless-py on PYTHONPATH.
"""
import sys

import qless

port, certs, jid = sys.argv[1], sys.argv[2], sys.argv[3]
client = qless.Client('rediss://127.0.0.1:%s' % port,
                      ssl_ca_certs=certs + '/ca.crt',
                      ssl_certfile=certs + '/client.crt',
                      ssl_keyfile=certs + '/client.key')
print('qless-py: connection class %s' % client.redis.connection_pool.connection_class.__name__)
queue = client.queues['tls-py']
print('qless-py: put %s' % queue.put('tls.Check', {'binding': 'qless-py'}, jid=jid))
job = queue.pop()
print('qless-py: popped %s from %s by %s' % (job.jid, job.queue_name, job.worker_name))
print('qless-py: complete -> %s' % job.complete())
print('qless-py: state %s' % client.jobs[jid].state)
