'use strict';

// One job's life through qless-js over TLS: put, pop, complete.
//
// Run by tls-bindings.sh: QLESS_JS_DIR=... node tls_bindings.js PORT CERTDIR JID
const fs = require('fs');
const qless = require(process.env.QLESS_JS_DIR);

const [port, certs, jid] = process.argv.slice(2);
const client = new qless.Client({
  host: '127.0.0.1',
  port: Number(port),
  tls: {
    ca: fs.readFileSync(`${certs}/ca.crt`),
    cert: fs.readFileSync(`${certs}/client.crt`),
    key: fs.readFileSync(`${certs}/client.key`),
    servername: 'localhost',
  },
});
const queue = client.queue('tls-js');
queue.put({ klass: 'tls.Check', data: { binding: 'qless-js' }, jid })
  .then((put) => {
    console.log(`qless-js: put ${put}`);
    return queue.pop();
  })
  .then((job) => {
    console.log(`qless-js: popped ${job.jid} from ${job.queueName} by ${job.workerName}`);
    return job.complete();
  })
  .then((state) => {
    console.log(`qless-js: complete -> ${state}`);
    return client.job(jid);
  })
  .then((job) => {
    console.log(`qless-js: state ${job.state}`);
    client.quit();
  })
  .catch((err) => {
    console.error(`qless-js: ${err.stack || err}`);
    client.quit();
    process.exitCode = 1;
  });
