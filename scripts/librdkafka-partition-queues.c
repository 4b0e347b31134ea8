/* Does one partition's backlog hold back the fetching of another partition's new messages?
 * librdkafka 2.0.2, its mock cluster (1 broker), topic "t" with 2 partitions: a backlog on
 * partition 0, one new message every 20 ms on partition 1 (its payload: the time it was produced);
 * the consumer drains at a bounded rate and reports how long partition 1's messages took from
 * produce to poll.
 *   mode "shared": rd_kafka_consumer_poll (partitions forward to the one consumer queue, the default)
 *   mode "own":    each partition's own queue (rd_kafka_queue_get_partition + forward(NULL)), polled in turn
 * Why KafkaConsumer reads each partition from its own queue (docs/kafka.md, docs/BENCHMARKS.md):
 *   cc -O2 -o /tmp/partition-queues scripts/librdkafka-partition-queues.c -lrdkafka -lpthread
 *   /tmp/partition-queues shared 200000 100000 10000 6; /tmp/partition-queues own 200000 100000 10000 6
 * usage: partition-queues shared|own BACKLOG QUEUED_MIN_MESSAGES RATE_PER_S SECONDS
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int own_queues;
static rd_kafka_queue_t *partq[2];
static volatile int stop;

static void rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts, void *opaque) {
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        if (own_queues)
            for (int i = 0; i < parts->cnt; i++) {
                rd_kafka_queue_t *q = rd_kafka_queue_get_partition(rk, parts->elems[i].topic, parts->elems[i].partition);
                rd_kafka_queue_forward(q, NULL);
                partq[parts->elems[i].partition] = q;
            }
        rd_kafka_assign(rk, parts);
    } else {
        rd_kafka_assign(rk, NULL);
    }
}

static rd_kafka_t *producer(const char *bootstraps) {
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, err, sizeof err);
    rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof err);
    return rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
}

static void *ticker(void *arg) {
    rd_kafka_t *p = arg;
    while (!stop) {
        long long t = now_us();
        rd_kafka_producev(p, RD_KAFKA_V_TOPIC("t"), RD_KAFKA_V_PARTITION(1), RD_KAFKA_V_VALUE(&t, sizeof t),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        rd_kafka_poll(p, 0);
        rd_kafka_flush(p, 1000);
        usleep(20000);
    }
    return NULL;
}

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: partition-queues shared|own BACKLOG QUEUED_MIN_MESSAGES RATE_PER_S SECONDS\n"); return 2; }
    own_queues = strcmp(argv[1], "own") == 0;
    int backlog = atoi(argv[2]), rate = atoi(argv[4]), seconds = atoi(argv[5]);
    char err[512];
    rd_kafka_conf_t *mconf = rd_kafka_conf_new();
    rd_kafka_conf_set(mconf, "test.mock.num.brokers", "1", err, sizeof err);
    rd_kafka_t *mrk = rd_kafka_new(RD_KAFKA_PRODUCER, mconf, err, sizeof err);
    rd_kafka_mock_cluster_t *mcluster = rd_kafka_handle_mock_cluster(mrk);
    rd_kafka_mock_topic_create(mcluster, "t", 2, 1);
    const char *bootstraps = rd_kafka_mock_cluster_bootstraps(mcluster);

    rd_kafka_t *p = producer(bootstraps);
    char value[300];
    memset(value, 'x', sizeof value);
    for (int i = 0; i < backlog; i++) {
        while (rd_kafka_producev(p, RD_KAFKA_V_TOPIC("t"), RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_VALUE(value, sizeof value),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(p, 10);
        rd_kafka_poll(p, 0);
    }
    rd_kafka_flush(p, 30000);

    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", "g", err, sizeof err);
    rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", err, sizeof err);
    rd_kafka_conf_set(conf, "fetch.wait.max.ms", "10", err, sizeof err);
    rd_kafka_conf_set(conf, "queued.min.messages", argv[3], err, sizeof err);
    rd_kafka_conf_set_rebalance_cb(conf, rebalance);
    rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    rd_kafka_poll_set_consumer(c);
    rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(topics, "t", RD_KAFKA_PARTITION_UA);
    rd_kafka_subscribe(c, topics);

    pthread_t thread;
    int started = 0;
    long long latencies[100000];
    int n = 0, bulk = 0;
    long long end = 0;
    rd_kafka_message_t *msgs[100];
    while (!end || now_us() < end) {
        /* Drain at most RATE messages per second: 1 poll of up to rate/1000 messages per ms. */
        int want = rate / 1000 > 0 ? rate / 1000 : 1;
        if (own_queues) {
            rd_kafka_message_t *m;
            while ((m = rd_kafka_consumer_poll(c, 0))) { rd_kafka_message_destroy(m); }
            for (int q = 0; q < 2; q++) {
                if (!partq[q]) continue;
                ssize_t k = rd_kafka_consume_batch_queue(partq[q], 0, msgs, want);
                for (ssize_t i = 0; i < k; i++) {
                    rd_kafka_message_t *m2 = msgs[i];
                    if (!m2->err && m2->partition == 1 && m2->len == sizeof(long long)) {
                        long long t; memcpy(&t, m2->payload, sizeof t);
                        if (n < 100000 && started) latencies[n++] = now_us() - t;
                    } else if (!m2->err) bulk++;
                    rd_kafka_message_destroy(m2);
                }
            }
        } else {
            for (int i = 0; i < want; i++) {
                rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 0);
                if (!m) break;
                if (!m->err && m->partition == 1 && m->len == sizeof(long long)) {
                    long long t; memcpy(&t, m->payload, sizeof t);
                    if (n < 100000 && started) latencies[n++] = now_us() - t;
                } else if (!m->err) bulk++;
                rd_kafka_message_destroy(m);
            }
        }
        if (!started && bulk > 0) {
            started = 1;
            pthread_create(&thread, NULL, ticker, producer(bootstraps));
            end = now_us() + (long long)seconds * 1000000;
        }
        usleep(1000);
    }
    stop = 1;
    pthread_join(thread, NULL);
    qsort(latencies, n, sizeof latencies[0], cmp);
    printf("%s backlog=%d queued.min.messages=%s drain<=%d/s: bulk polled %d in %d s; partition 1: %d messages, "
           "produce->poll p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
           argv[1], backlog, argv[3], rate, bulk, seconds, n, n ? latencies[n / 2] / 1000.0 : 0,
           n ? latencies[(int)(n * 0.99)] / 1000.0 : 0, n ? latencies[n - 1] / 1000.0 : 0);
    for (int q = 0; q < 2; q++) if (partq[q]) rd_kafka_queue_destroy(partq[q]);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    return 0;
}
