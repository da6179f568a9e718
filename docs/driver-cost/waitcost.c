/* What one blocking wait costs the waiting thread, by primitive: 2,000 waits of 300 us each,
 * the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) and the wall time per wait (docs/driver-cost.md).
 *   gcc -O2 -o waitcost docs/driver-cost/waitcost.c && ./waitcost
 * The last two rows are spins, for scale: every microsecond of them is CPU. */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <sys/timerfd.h>
#include <sys/epoll.h>
#include <stdint.h>
#include <sched.h>
static uint64_t ns(clockid_t c){struct timespec t;clock_gettime(c,&t);return t.tv_sec*1000000000ull+t.tv_nsec;}
int main(int argc,char**argv){
  long d=300000; int n=2000; int fut=0;
  const char* names[]={"nanosleep","clock_nanosleep_abs","futex_wait_timeout","timerfd_read","epoll_wait_0_then_yield","sched_yield_spin"};
  for(int m=0;m<6;m++){
    uint64_t c0=ns(CLOCK_THREAD_CPUTIME_ID), w0=ns(CLOCK_MONOTONIC);
    int tfd=timerfd_create(CLOCK_MONOTONIC,0); int ep=epoll_create1(0);
    for(int i=0;i<n;i++){
      struct timespec ts={0,d};
      if(m==0) nanosleep(&ts,0);
      else if(m==1){ struct timespec a; clock_gettime(CLOCK_MONOTONIC,&a); a.tv_nsec+=d; if(a.tv_nsec>=1000000000){a.tv_nsec-=1000000000;a.tv_sec++;} clock_nanosleep(CLOCK_MONOTONIC,TIMER_ABSTIME,&a,0);}
      else if(m==2) syscall(SYS_futex,&fut,FUTEX_WAIT_PRIVATE,0,&ts,0,0);
      else if(m==3){ struct itimerspec it={{0,0},{0,d}}; timerfd_settime(tfd,0,&it,0); uint64_t x; read(tfd,&x,8);}
      else if(m==4){ struct epoll_event e; epoll_wait(ep,&e,1,0); uint64_t t0=ns(CLOCK_MONOTONIC); while(ns(CLOCK_MONOTONIC)-t0<d) sched_yield(); }
      else { uint64_t t0=ns(CLOCK_MONOTONIC); while(ns(CLOCK_MONOTONIC)-t0<d) sched_yield(); }
    }
    uint64_t c1=ns(CLOCK_THREAD_CPUTIME_ID), w1=ns(CLOCK_MONOTONIC);
    printf("%-22s cpu/wait %6.1f us wall/wait %6.1f us\n",names[m],(c1-c0)/1e3/n,(w1-w0)/1e3/n);
  }
}
