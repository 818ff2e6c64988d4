BBJ
%Àh“G<,p