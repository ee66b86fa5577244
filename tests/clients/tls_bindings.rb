# One job's life through the qless Ruby gem over TLS: put, pop, complete.
#
# Run by tls-bindings.sh: ruby -I QLESS_GEM/lib tls_bindings.rb PORT CERTDIR JID
require 'openssl'
require 'qless'

port, certs, jid = ARGV
client = Qless::Client.new(
  host: '127.0.0.1', port: Integer(port), ssl: true,
  ssl_params: {
    ca_file: "#{certs}/ca.crt",
    cert: OpenSSL::X509::Certificate.new(File.read("#{certs}/client.crt")),
    key: OpenSSL::PKey.read(File.read("#{certs}/client.key"))
  }
)
puts "qless gem #{Qless::VERSION}, redis-rb #{Redis::VERSION}"
queue = client.queues['tls-rb']
puts "qless gem: put #{queue.put('tls.Check', { 'binding' => 'qless-rb' }, jid: jid)}"
job = queue.pop
puts "qless gem: popped #{job.jid} from #{job.queue_name} by #{job.worker_name}"
puts "qless gem: complete -> #{job.complete}"
puts "qless gem: state #{client.jobs[jid].state}"
