
BxJ*D,JÕIJµFðHâLKDjJxH'CŸGÅB’J¸LbJ
L‡DºLÁJ