/* The C twin of sieve.star: sieves of Eratosthenes for 200 bounds n from
   50,000 up, counting the primes up to n and the twin primes among them,
   on an array of bytes. gcc -O2. */
#include <stdio.h>
#include <string.h>

static unsigned char is_p[60001];

static void sieve(long n, long *count, long *twins) {
	memset(is_p, 1, n + 1);
	is_p[0] = 0;
	is_p[1] = 0;
	for (long i = 2; i * i <= n; i++)
		if (is_p[i])
			for (long j = i * i; j <= n; j += i)
				is_p[j] = 0;
	*count = 0;
	*twins = 0;
	for (long k = 2; k <= n; k++)
		if (is_p[k]) {
			++*count;
			if (k >= 5 && is_p[k - 2])
				++*twins;
		}
}

int main(void) {
	long primes = 0, pairs = 0;
	for (long n = 50000; n < 60000; n += 50) {
		long c, t;
		sieve(n, &c, &t);
		primes += c;
		pairs += t;
	}
	printf("%ld %ld\n", primes, pairs);
	return 0;
}
