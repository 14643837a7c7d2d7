/*
 * The pod sandbox's process: holds the pod's namespaces open, reaps orphans, and exits
 * on SIGINT/SIGTERM. Built with `gcc -Os -static` into the image tkube.local/pause:1.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int signo) {
  (void)signo;
  _exit(0);
}

static void reap(int signo) {
  (void)signo;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = stop;
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  action.sa_handler = reap;
  action.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  sigaction(SIGCHLD, &action, NULL);
  for (;;) pause();
}
