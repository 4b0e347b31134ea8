/* Can resuming a partition right after assigning it stop it from ever being fetched?
 * librdkafka 2.0.2, its mock cluster (1 broker): each round, a topic of PARTITIONS partitions with
 * one message each, and a new consumer (cooperative-sticky) whose rebalance callback assigns the
 * partitions and resumes them — "after" (resume after incremental_assign, as KafkaConsumer did
 * until 2026-12-07) or "before" (resume, then assign, as it does now). A resume takes a new version
 * of the partition's operations even when nothing is paused (rd_kafka_toppar_op_pause_resume); the
 * fetch start, made on librdkafka's main thread once the committed offset comes back, is dropped as
 * outdated when it took an older version but was queued after the resume. Counts the partitions
 * whose message has not arrived SECONDS after the assignment. Round r (from 0) waits
 * (r * STEP_US) % 2000 µs between the assignment and the resume ("after"; before both in "before"),
 * so that over the rounds the resume lands before, among and after the fetch starts. The window is
 * a few instructions wide; with RESUME_RACE_DEBUG set, the consumer's debug log (topic,cgrp, on
 * stderr) widens it, and a dropped start shows as "received outdated op FETCH_START" (docs/kafka.md):
 *   cc -O2 -o /tmp/resume-race scripts/librdkafka-resume-race.c -lrdkafka
 *   RESUME_RACE_DEBUG=1 /tmp/resume-race after 64 20 5 37 2>after.log; grep -c 'outdated op FETCH_START' after.log
 *   RESUME_RACE_DEBUG=1 /tmp/resume-race before 64 20 5 37 2>before.log; grep -c 'outdated op FETCH_START' before.log
 * usage: resume-race after|before PARTITIONS ROUNDS SECONDS STEP_US
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int resume_first;
static long wait_us;

static void rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts, void *opaque) {
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        struct timespec wait = {0, wait_us * 1000};
        if (resume_first) { nanosleep(&wait, NULL); rd_kafka_resume_partitions(rk, parts); }
        rd_kafka_error_t *error = rd_kafka_incremental_assign(rk, parts);
        if (error) rd_kafka_error_destroy(error);
        if (!resume_first) { nanosleep(&wait, NULL); rd_kafka_resume_partitions(rk, parts); }
    } else {
        rd_kafka_error_t *error = rd_kafka_incremental_unassign(rk, parts);
        if (error) rd_kafka_error_destroy(error);
    }
}

static rd_kafka_t *client(rd_kafka_type_t type, const char *bootstraps) {
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (bootstraps) rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, err, sizeof err);
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
    if (type == RD_KAFKA_CONSUMER) {
        if (getenv("RESUME_RACE_DEBUG")) {
            rd_kafka_conf_set(conf, "debug", "topic,cgrp", err, sizeof err);
            rd_kafka_conf_set(conf, "log_level", "7", err, sizeof err);
        }
        rd_kafka_conf_set(conf, "group.id", "g", err, sizeof err);
        rd_kafka_conf_set(conf, "partition.assignment.strategy", "cooperative-sticky", err, sizeof err);
        rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", err, sizeof err);
        rd_kafka_conf_set_rebalance_cb(conf, rebalance);
    }
    rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
    if (!rk) { fprintf(stderr, "rd_kafka_new: %s\n", err); exit(1); }
    return rk;
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
    if (argc != 6 || (strcmp(argv[1], "after") && strcmp(argv[1], "before"))) {
        fprintf(stderr, "usage: %s after|before PARTITIONS ROUNDS SECONDS STEP_US\n", argv[0]);
        return 2;
    }
    resume_first = !strcmp(argv[1], "before");
    int partitions = atoi(argv[2]), rounds = atoi(argv[3]), seconds = atoi(argv[4]), step_us = atoi(argv[5]);
    int never = 0;
    for (int round = 0; round < rounds; round++) {
        wait_us = ((long)round * step_us) % 2000;
        rd_kafka_t *owner = client(RD_KAFKA_PRODUCER, NULL);
        rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(owner, 1);
        const char *bootstraps = rd_kafka_mock_cluster_bootstraps(cluster);
        rd_kafka_mock_topic_create(cluster, "t", partitions, 1);
        rd_kafka_t *producer = client(RD_KAFKA_PRODUCER, bootstraps);
        for (int p = 0; p < partitions; p++)
            rd_kafka_producev(producer, RD_KAFKA_V_TOPIC("t"), RD_KAFKA_V_PARTITION(p), RD_KAFKA_V_VALUE("m", 1),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        rd_kafka_flush(producer, 10000);

        rd_kafka_t *consumer = client(RD_KAFKA_CONSUMER, bootstraps);
        rd_kafka_poll_set_consumer(consumer);
        rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(topics, "t", RD_KAFKA_PARTITION_UA);
        rd_kafka_subscribe(consumer, topics);
        rd_kafka_topic_partition_list_destroy(topics);

        char *seen = calloc(partitions, 1);
        int received = 0;
        long long assigned_at = -1, started_at = now_ms();
        while (received < partitions) {
            rd_kafka_message_t *message = rd_kafka_consumer_poll(consumer, 100);
            rd_kafka_topic_partition_list_t *assignment = NULL;
            if (assigned_at < 0 && rd_kafka_assignment(consumer, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR) {
                if (assignment->cnt == partitions) assigned_at = now_ms();
                rd_kafka_topic_partition_list_destroy(assignment);
            }
            if (message) {
                if (!message->err && !seen[message->partition]) { seen[message->partition] = 1; received++; }
                rd_kafka_message_destroy(message);
            }
            if (assigned_at >= 0 && now_ms() - assigned_at > seconds * 1000LL) break;
            if (now_ms() - started_at > 60000LL) {
                fprintf(stderr, "round %d: no assignment of all %d partitions within 60 s\n", round + 1, partitions);
                return 1;
            }
        }
        printf("round %d (waited %ld µs): %d of %d partitions fetched%s\n", round + 1, wait_us, received, partitions,
               received < partitions ? " (the rest never, within the wait)" : "");
        fflush(stdout);
        never += partitions - received;
        free(seen);
        rd_kafka_consumer_close(consumer);
        rd_kafka_destroy(consumer);
        rd_kafka_destroy(producer);
        rd_kafka_mock_cluster_destroy(cluster);
        rd_kafka_destroy(owner);
    }
    printf("%s: %d of %d partition assignments never fetched within %d s\n", argv[1], never, partitions * rounds, seconds);
    return 0;
}
