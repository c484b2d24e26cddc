#!/usr/bin/env node
// End-to-end smoke test for the servers started by scripts/test-servers.sh, using the same
// client libraries as the service (kafkajs, mongodb) from the repo's node_modules.
//
//   node scripts/smoke-test-servers.mjs [kafka] [mongo]     (default: both)
//
// Env: KAFKA_BROKERS (127.0.0.1:9092), MONGODB_URL (mongodb://127.0.0.1:27017/)
import { randomUUID } from 'node:crypto';

process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

const which = process.argv.slice(2);
const want = (name) => which.length === 0 || which.includes(name);

async function kafkaSmoke() {
  const { Kafka, logLevel } = await import('kafkajs');
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const kafka = new Kafka({ clientId: 'smoke', brokers, logLevel: logLevel.WARN });
  const topic = `smoke-${randomUUID()}`;
  const admin = kafka.admin();
  await admin.connect();
  const created = await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  if (!created) throw new Error(`topic ${topic} was not created`);
  await admin.disconnect();

  const producer = kafka.producer();
  await producer.connect();
  const value = `hello ${Date.now()}`;
  await producer.send({ topic, messages: [{ key: 'k', value }] });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: `smoke-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no message consumed within 30s')), 30_000);
    consumer
      .run({
        eachMessage: async ({ message }) => {
          clearTimeout(timer);
          resolve(message.value.toString());
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  if (got !== value) throw new Error(`consumed ${got}, expected ${value}`);
  console.log(`kafka ok: topic ${topic}, produced+consumed "${got}"`);
}

async function mongoSmoke() {
  const { MongoClient } = await import('mongodb');
  const url = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017/';
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    const admin = client.db('admin');
    await admin.command({ ping: 1 });
    const build = await admin.command({ buildInfo: 1 });
    const coll = client.db('smoke').collection(`c_${randomUUID().replaceAll('-', '')}`);
    const doc = { _id: randomUUID(), tenant: 't1', n: 42, nested: { a: [1, 2] } };
    await coll.insertOne(doc);
    const found = await coll.findOne({ _id: doc._id });
    if (!found || found.n !== 42 || found.nested.a[1] !== 2) throw new Error(`findOne returned ${JSON.stringify(found)}`);
    await coll.drop();
    console.log(`mongo ok: ${url} (reports MongoDB ${build.version}, ferretdb ${build.ferretdbVersion ?? 'n/a'}), insert+find ok`);
  } finally {
    await client.close();
  }
}

try {
  if (want('kafka')) await kafkaSmoke();
  if (want('mongo')) await mongoSmoke();
} catch (err) {
  console.error('smoke test failed:', err);
  process.exit(1);
}
