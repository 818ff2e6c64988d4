
BreducedJ
Q@ª>Î<™? >