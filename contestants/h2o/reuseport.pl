#!/usr/bin/perl
# Usage: reuseport.pl HOST PORT COUNT COMMAND... — opens COUNT listening sockets on HOST:PORT,
# each with SO_REUSEPORT (so the kernel spreads new connections over them) and a backlog of 65535
# (net.core.somaxconn caps it), and runs COMMAND once per socket with SERVER_STARTER_PORT naming
# it: h2o takes its listener from there instead of binding one. Until every copy has exited; a
# copy that exits on its own ends the others, and this exits 1 (no worker restarted unseen).
#
# Why: h2o 2.2.5's threads share one listener, and a burst of connections (a benchmark's start)
# lands on whichever thread wakes first, so `num-threads: 2` served it from one thread. h2o 2.3
# added `tcp-reuseport` for this; Debian 12 has 2.2.5. Perl's core Socket module only: perl-base
# is on every Debian system.
use strict;
use warnings;
use Socket qw(AF_INET AF_INET6 SOCK_STREAM SOL_SOCKET SO_REUSEADDR SO_REUSEPORT inet_pton
              pack_sockaddr_in pack_sockaddr_in6);
use Fcntl qw(F_SETFD);
use POSIX qw(_exit);

my ($host, $port, $count, @command) = @ARGV;
die "usage: reuseport.pl HOST PORT COUNT COMMAND...\n" unless defined $count && @command;
die "reuseport.pl: COUNT must be a positive number, not '$count'\n" unless $count =~ /^[1-9][0-9]*$/;

my ($family, $address);
if (my $packed = inet_pton(AF_INET, $host)) {
    ($family, $address) = (AF_INET, pack_sockaddr_in($port, $packed));
} elsif ($packed = inet_pton(AF_INET6, $host)) {
    ($family, $address) = (AF_INET6, pack_sockaddr_in6($port, $packed));
} else {
    die "reuseport.pl: '$host' is not an IP address\n";
}

my @sockets;
for (1 .. $count) {
    socket(my $socket, $family, SOCK_STREAM, 0) or die "reuseport.pl: socket: $!\n";
    setsockopt($socket, SOL_SOCKET, SO_REUSEADDR, 1) or die "reuseport.pl: SO_REUSEADDR: $!\n";
    setsockopt($socket, SOL_SOCKET, SO_REUSEPORT, 1) or die "reuseport.pl: SO_REUSEPORT: $!\n";
    bind($socket, $address) or die "reuseport.pl: bind $host port $port: $!\n";
    listen($socket, 65535) or die "reuseport.pl: listen: $!\n";
    push @sockets, $socket;
}

# The harness stops the whole process group with the stop signal: each copy hears it. Here it
# only means "the exits that follow are the stop".
my $stopping = 0;
$SIG{$_} = sub { $stopping = 1 } for qw(TERM INT QUIT HUP);

my %children;
for my $socket (@sockets) {
    my $pid = fork();
    die "reuseport.pl: fork: $!\n" unless defined $pid;
    if ($pid == 0) {
        close($_) for grep { $_ != $socket } @sockets;  # each copy holds its own socket alone
        fcntl($socket, F_SETFD, 0) or _exit(1);          # kept across exec
        $SIG{$_} = 'DEFAULT' for qw(TERM INT QUIT HUP);
        $ENV{SERVER_STARTER_PORT} = "$port=" . fileno($socket);
        exec { $command[0] } @command or do { print STDERR "reuseport.pl: exec $command[0]: $!\n"; _exit(127) };
    }
    $children{$pid} = 1;
}
close($_) for @sockets;

my $status = 0;
while (%children) {
    my $pid = waitpid(-1, 0);
    next if $pid == -1 && $!{EINTR};
    last if $pid == -1;
    next unless delete $children{$pid};
    next if $stopping;
    print STDERR "reuseport.pl: $command[0] (pid $pid) exited with status $?: stopping the others\n";
    $status = 1;
    $stopping = 1;
    kill 'TERM', keys %children;
}
exit $status;
