/**
 * A primary supervising two workers with the service's `superviseWorkers`, for the cluster tests:
 * each worker listens, then starts `sleep 60` holding its IPC channel open and prints
 * `worker <pid> holds the channel in <sleep pid>`, so that its death comes before its channel's
 * close, as it may on a busy machine. A worker dies of SIGTERM's default action.
 */
import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import http from 'node:http';
import { superviseWorkers } from '../../engine/cluster.js';
import { createLogger } from '../../engine/log.js';

if (cluster.isPrimary) {
  superviseWorkers(2, createLogger('info'));
} else {
  http.createServer().listen(0, '127.0.0.1', () => {
    const holder = spawn('sleep', ['60'], { stdio: ['ignore', 'ignore', 'ignore', (process.channel as unknown as { fd: number }).fd] });
    process.stdout.write(`worker ${process.pid} holds the channel in ${holder.pid}\n`);
  });
}
